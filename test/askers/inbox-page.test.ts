/**
 * @module test/askers/inbox-page.test
 * The reviewer's page in real Chromium, driven by the keyboard only: each
 * question shows its tool's description and caps (escaped, bounded); an
 * Edit-style call as a diff, a Write-style one as the new file, a Bash-style
 * one as a command, control and bidi characters escaped exactly as the
 * terminal escapes them; the title counts pending questions; an opt-in
 * notification for new ones; the terminal's single keys with a visible hint,
 * ignored while typing, focus moving to the next question or the landmark;
 * times with their full date; the reviewer's name kept across runs (another
 * port); an axe-core pass; and the README's screenshot.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { ApprovalInbox } from "../../src/askers/index.js";
import { approvalGuard } from "../../src/mcp/approvals/index.js";
import { visible } from "../../src/util/visible-text.js";
import { approvalsAsking, chromiumPerFile, inboxWithPage, loggedInPage, SESSION } from "./inbox-kit.js";

// The few browser globals the page.evaluate callbacks use (the test tsconfig has no DOM lib).
declare const document: { activeElement: { id: string; tagName: string; getAttribute(name: string): string | null } | null; title: string };
declare const window: {
  __notes: Array<{ title: string; body: string }>;
  __asked: number;
  axe: {
    run(
      context: unknown,
      options: unknown,
    ): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown }> }> }>;
  };
};

/** The README's screenshot: written here only when this variable is set (see README, "The approval inbox"). */
const DOCS_SCREENSHOT = fileURLToPath(new URL("../../docs/inbox.png", import.meta.url));
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

const { browser, cleanups } = chromiumPerFile();

/** Press `a` `n` times, each once the previous answer has left the page. */
async function answerAll(page: Page, n: number): Promise<void> {
  for (let left = n; left > 0; left--) {
    await page.keyboard.press("a");
    await expect.poll(() => page.locator("#pending article").count()).toBe(left - 1);
  }
}

const question = (page: Page, tool: string) => page.getByRole("article", { name: tool });
/** The id of the element holding focus, or its tag name. */
const focused = (page: Page) => page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName || "");

/** A served tool that requires approval, with a description, caps and MCP annotations, asked through the server-side guard. */
function guardAsking(inbox: ApprovalInbox, description: string) {
  const asker = inbox.asker({ source: "billing" });
  const guard = approvalGuard({ asker, ctx: asker });
  const tool = {
    requiresApproval: true,
    sideEffecting: true,
    description,
    caps: ["egress", "private_data"],
    annotations: { destructiveHint: true, title: "Refund" },
  };
  return (args: Record<string, unknown>) => guard({ tool, name: "refund", qualifiedName: "mcp__billing__refund", arguments: args });
}

describe("the reviewer's page, keyboard only", () => {
  it("shows the tool's description and caps, escaped and bounded; an Edit as a diff, a Write as the new file, a Bash call as a command, hidden characters escaped as the terminal does", async () => {
    const { inbox, approvals, page } = await inboxWithPage(browser(), cleanups);
    const evil = `Refunds an order.\u202e<img src=x onerror=alert(1)>\u001b[2J ${"x".repeat(5000)}`;
    const refund = guardAsking(inbox, evil)({ order: 17 });
    const art = question(page, "mcp__billing__refund");
    await art.waitFor();
    const description = await art.locator(".description").textContent();
    expect(description).toContain(visible("Refunds an order.\u202e<img src=x onerror=alert(1)>\u001b[2J"));
    expect(description).not.toContain("\u202e");
    // bounded: 2000 characters kept (then "…"), a few more once escaped
    expect(description!.endsWith("x…")).toBe(true);
    expect(description!.length).toBeLessThan(2100);
    expect(await art.locator("img").count()).toBe(0);
    expect(await art.getByRole("list", { name: "What mcp__billing__refund declares" }).getByRole("listitem").allTextContents()).toEqual([
      "cap egress",
      "cap private_data",
      "side-effecting",
      "requires approval",
      "destructiveHint: true",
      "title: Refund",
    ]);

    const edit = approvals.prompt("Edit", {
      file_path: "src/a\u202e.ts",
      old_string: "one\ntwo\nthree",
      new_string: "one\n2\u0007\nthree",
    });
    const editArt = question(page, "Edit");
    await editArt.waitFor();
    expect(await editArt.locator(".view-head").first().textContent()).toBe(`Edit ${visible("src/a\u202e.ts")}`);
    expect(await editArt.locator("pre.diff").textContent()).toBe(`  one\n- two\n+ ${visible("2\u0007")}\n  three`);
    expect(await editArt.locator("pre.diff del").allTextContents()).toEqual(["- two"]);

    const multi = approvals.prompt("MultiEdit", {
      file_path: "b.ts",
      edits: [
        { old_string: "x", new_string: "y" },
        { old_string: "p", new_string: "q" },
      ],
    });
    const multiArt = question(page, "MultiEdit");
    await multiArt.waitFor();
    expect(await multiArt.locator("pre.diff").textContent()).toBe("@@ edit 1 of 2 @@\n- x\n+ y\n@@ edit 2 of 2 @@\n- p\n+ q");

    const write = approvals.prompt("Write", { file_path: "notes.txt", content: "first\n<b>second</b>" });
    const writeArt = question(page, "Write");
    await writeArt.waitFor();
    expect(await writeArt.locator("pre.diff ins").allTextContents()).toEqual(["+ first", "+ <b>second</b>"]);
    expect(await writeArt.locator("pre.diff b").count()).toBe(0);

    const bash = approvals.prompt("Bash", {
      command: "rm -rf build && echo \u202edone",
      cwd: "/srv/app",
      timeout: 120000,
      description: "Clean the build",
    });
    const bashArt = question(page, "Bash");
    await bashArt.waitFor();
    expect(await bashArt.getByLabel("Command").textContent()).toBe(`$ ${visible("rm -rf build && echo \u202edone")}`);
    expect(await bashArt.locator(".view.command").textContent()).toContain("in /srv/app · timeout 120000");
    // the JSON the Modify form edits stays a keyboard key away (d opens the details)
    expect(await bashArt.locator("details.json").getAttribute("open")).toBeNull();

    // the live announcement names the tool escaped too (the stream sends it made visible)
    const odd = approvals.prompt("Evil\u202eName", {});
    await expect.poll(() => page.locator("#announcer").textContent()).toBe(`New question: ${visible("Evil\u202eName")} from engine`);

    // answer all six by keyboard: a on the first, focus moves to the next each time
    await answerAll(page, 6);
    await expect(Promise.all([refund, edit, multi, write, bash, odd.then(() => "odd")])).resolves.toEqual([
      { allowed: true },
      { behavior: "allow", updatedInput: expect.objectContaining({ file_path: "src/a\u202e.ts" }) },
      { behavior: "allow", updatedInput: expect.objectContaining({ file_path: "b.ts" }) },
      { behavior: "allow", updatedInput: expect.objectContaining({ file_path: "notes.txt" }) },
      { behavior: "allow", updatedInput: expect.objectContaining({ cwd: "/srv/app" }) },
      "odd",
    ]);
  });

  it("single keys as the terminal's (a, r, m, d; j/k to move) with a visible hint; ignored while typing; focus goes to the next question, then to the landmark", async () => {
    const { approvals, page } = await inboxWithPage(browser(), cleanups);
    expect(await page.locator("#keys").isVisible()).toBe(true);
    const hint = await page.locator("#keys").textContent();
    expect(hint).toContain("Keys: a approve · r reject · m modify · d details");
    const first = approvals.prompt("Write", { file_path: "one.txt", content: "1" });
    const second = approvals.prompt("Bash", { command: "make test" });
    const third = approvals.prompt("Read", { path: "README.md" });
    await question(page, "Read").waitFor();
    const [w, b, r] = await page.locator("#pending article").evaluateAll((els) => els.map((e) => (e as unknown as { id: string }).id));

    // typing a name made of shortcut letters answers nothing
    await page.keyboard.press("Tab"); // the name field is the first control
    expect(await focused(page)).toBe("actor");
    await page.keyboard.type("adam rd");
    expect(await page.locator("#pending article").count()).toBe(3);
    expect(approvals.server.decisions).toHaveLength(0);

    // j moves to a question; d opens its details; k goes back; m opens Modify with the focus in the textarea; Escape closes it
    await page.keyboard.press("Tab"); // out of the field, onto the next control (a button)
    await page.keyboard.press("j");
    expect(await focused(page)).toBe(w);
    await page.keyboard.press("j");
    expect(await focused(page)).toBe(b);
    await page.keyboard.press("d");
    expect(await question(page, "Bash").locator("details.call-details").getAttribute("open")).toBe("");
    await page.keyboard.press("k");
    expect(await focused(page)).toBe(w);
    await page.keyboard.press("m");
    expect(await focused(page)).toBe(`${w}-args`);
    await page.keyboard.type("a"); // typed into the arguments, not a shortcut
    await page.keyboard.press("Escape");
    expect(await question(page, "Write").getByRole("button", { name: "Modify" }).getAttribute("aria-expanded")).toBe("false");

    // a approves the focused question; the focus moves to the next one
    await page.keyboard.press("k");
    await page.keyboard.press("a");
    expect(await first).toEqual({ behavior: "allow", updatedInput: { file_path: "one.txt", content: "1" } });
    await expect.poll(() => focused(page)).toBe(b);
    // r opens the note; Enter sends it; the focus moves to the last question
    await page.keyboard.press("r");
    expect(await focused(page)).toBe(`${b}-note`);
    await page.keyboard.type("not now");
    await page.keyboard.press("Enter");
    expect(await second).toEqual({ behavior: "deny", message: "not now" });
    await expect.poll(() => focused(page)).toBe(r);
    await page.keyboard.press("a");
    expect(await third).toMatchObject({ behavior: "allow" });
    // none left: the focus is on the pending questions' landmark, not lost to <body>
    await expect.poll(() => focused(page)).toBe("pending-section");
    expect(approvals.server.decisions.map((d) => [d.tool, d.allowed, d.actor])).toEqual([
      ["Write", true, expect.stringMatching(SESSION)],
      ["Bash", false, expect.stringMatching(SESSION)],
      ["Read", true, expect.stringMatching(SESSION)],
    ]);
    expect(approvals.server.decisions[0]!.claimedActor).toBe("adam rd");
  });

  it("the title counts pending questions; times carry their full date; a notification for new questions only after the button (keyboard) turns it on", async () => {
    const { inbox, approvals, context, page } = await inboxWithPage(browser(), cleanups);
    expect(await page.title()).toBe("agentkit inbox");
    await context.grantPermissions(["notifications"], { origin: new URL(inbox.url).origin });
    // Each Notification the page makes is recorded (the real one is still made: a subclass).
    await context.addInitScript(() => {
      window.__notes = [];
      const g = globalThis as unknown as { Notification: new (title: string, options: { body: string }) => object };
      g.Notification = class extends g.Notification {
        constructor(title: string, options: { body: string }) {
          super(title, options);
          window.__notes.push({ title, body: options.body });
        }
      };
    });
    await page.reload();
    await page.getByText("Live: new questions appear here").waitFor();
    const one = approvals.prompt("Write", { file_path: "a.txt", content: "a" });
    await question(page, "Write").waitFor();
    expect(await page.title()).toBe("(1) agentkit inbox");
    expect(await page.evaluate(() => window.__notes.length)).toBe(0); // not turned on yet

    const button = page.getByRole("button", { name: "Notify me of new questions" });
    await button.focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => button.getAttribute("aria-pressed")).toBe("true");
    const two = approvals.prompt("Bash", { command: "ls" });
    await question(page, "Bash").waitFor();
    expect(await page.title()).toBe("(2) agentkit inbox");
    await expect.poll(() => page.evaluate(() => window.__notes)).toEqual([{ title: "New question: Bash", body: "from engine" }]);

    // the asked time has its full date; a decision's time says how long ago, with the date in its title
    const asked = question(page, "Write").locator(".meta time").first();
    expect(await asked.getAttribute("datetime")).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await asked.getAttribute("title")).toContain(String(new Date().getFullYear()));
    await page.keyboard.press("a");
    await one;
    // the answer reaches the asker before the page hears the question closed: poll
    await expect.poll(() => page.title()).toBe("(1) agentkit inbox");
    const at = page.locator("#decisions tbody tr").first().locator("time");
    await expect.poll(() => at.textContent()).toMatch(/^(just now|\d+ s ago)$/);
    expect(await at.getAttribute("title")).toContain(String(new Date().getFullYear()));
    await page.keyboard.press("a");
    await two;
    await expect.poll(() => page.title()).toBe("agentkit inbox");
  });

  it("the permission is asked only when the button is pressed", async () => {
    const { context, page } = await inboxWithPage(browser(), cleanups);
    await context.addInitScript(() => {
      window.__asked = 0;
      const N = (globalThis as unknown as { Notification: { requestPermission(): Promise<string> } }).Notification;
      N.requestPermission = async () => {
        window.__asked++;
        return "denied";
      };
    });
    await page.reload();
    await page.getByText("Live: new questions appear here").waitFor();
    expect(await page.evaluate(() => window.__asked)).toBe(0);
    await page.getByRole("button", { name: "Notify me of new questions" }).focus();
    await page.keyboard.press("Space");
    await expect.poll(() => page.evaluate(() => window.__asked)).toBe(1);
  });

  it("the reviewer's name is kept across runs (another inbox on another port); the recorded actor is still the session", async () => {
    const first = await ApprovalInbox.start();
    const { context, page: firstPage } = await loggedInPage(browser(), first);
    cleanups.push(() => context.close());
    await firstPage.keyboard.press("Tab");
    await firstPage.keyboard.type("ada");
    await firstPage.keyboard.press("Tab"); // leaving the field saves it
    const firstPort = new URL(first.url).port;
    await first.stop(); // the run ends; its listener and port go
    const second = await ApprovalInbox.start();
    cleanups.push(() => second.stop());
    expect(new URL(second.url).port).not.toBe(firstPort);
    const page = await context.newPage();
    await page.goto(second.loginUrl);
    await page.getByText("Live: new questions appear here").waitFor();
    expect(await page.getByLabel("Your name", { exact: false }).inputValue()).toBe("ada");
    const approvals = await approvalsAsking(second.asker({ source: "engine" }));
    cleanups.push(() => approvals.close());
    const answer = approvals.prompt("Write", { file_path: "b.txt", content: "b" });
    await question(page, "Write").waitFor();
    await page.keyboard.press("a");
    await answer;
    expect(approvals.server.decisions[0]).toMatchObject({ actor: expect.stringMatching(SESSION), claimedActor: "ada" });
  });

  it("axe-core finds no serious or critical violation, with questions of every view, open forms and details, and decisions", async () => {
    const { inbox, approvals, page } = await inboxWithPage(browser(), cleanups, { timeoutMs: 600_000 });
    const done = [
      guardAsking(inbox, "Refunds an order to the card it was paid with.")({ order: 17 }),
      approvals.prompt("Read", { path: "a" }),
    ];
    await question(page, "Read").waitFor();
    await answerAll(page, 2);
    await Promise.all(done);
    const asked = [
      guardAsking(inbox, "Refunds an order to the card it was paid with.")({ order: 18 }),
      approvals.prompt("Edit", { file_path: "src/app.ts", old_string: "a\nb", new_string: "a\nc" }),
      approvals.prompt("Bash", { command: "git push", cwd: "/srv" }),
      approvals.prompt("Other", { query: "x" }),
    ];
    await question(page, "Other").waitFor();
    await page.keyboard.press("j");
    await page.keyboard.press("d");
    await page.keyboard.press("j");
    await page.keyboard.press("r");
    await page.keyboard.press("Escape");
    await page.keyboard.press("j");
    await page.keyboard.press("j");
    await page.keyboard.press("m");
    await page.evaluate(AXE_SOURCE);
    const result = await page.evaluate(() => window.axe.run({ exclude: [] }, { resultTypes: ["violations"] }));
    const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    expect(bad.map((v) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`)).toEqual([]);
    // the check is live: an unlabelled field added to the page is reported
    await page.evaluate(() =>
      (
        globalThis as unknown as { document: { body: { insertAdjacentHTML(where: string, html: string): void } } }
      ).document.body.insertAdjacentHTML("beforeend", '<input id="unlabelled">'),
    );
    const broken = await page.evaluate(() => window.axe.run({ exclude: [] }, { resultTypes: ["violations"] }));
    expect(broken.violations.map((v) => v.id)).toContain("label");
    await page.keyboard.press("Escape");
    await answerAll(page, 4);
    await Promise.all(asked);
  });

  it("screenshots the page (a temp file always; docs/inbox.png when AGENTKIT_SCREENSHOTS=1)", async () => {
    const { inbox, approvals, page } = await inboxWithPage(browser(), cleanups, { timeoutMs: 600_000 });
    const deploy = await approvalsAsking(inbox.asker({ source: "deploy-bot" }), { autoAllow: ["Read"] });
    cleanups.push(() => deploy.close());
    await page.getByLabel("Your name", { exact: false }).focus();
    await page.keyboard.type("ada");
    await page.keyboard.press("Tab");
    expect(await deploy.prompt("Read", { path: "README.md" })).toMatchObject({ behavior: "allow" }); // auto_allow, never asked
    const first = approvals.prompt("Write", { file_path: "src/app.ts", content: "export const answer = 42;\n" });
    await question(page, "Write").waitFor();
    await page.keyboard.press("a");
    await first;
    const second = approvals.prompt("Bash", { command: "git push --force" });
    await question(page, "Bash").waitFor();
    await page.keyboard.press("r");
    await page.keyboard.type("no force pushes");
    await page.keyboard.press("Enter");
    await second;
    const pending = [
      guardAsking(
        inbox,
        "Refunds an order to the card it was paid with. Money leaves the company: check the order first.",
      )({ order: 1017, amount_eur: 49.9 }),
      deploy.prompt("Edit", {
        file_path: "deploy/prod.yaml",
        old_string: "replicas: 2\nimage: app:1.4.0\nport: 8080",
        new_string: "replicas: 4\nimage: app:1.5.0\nport: 8080",
      }),
      approvals.prompt("Bash", {
        command: "kubectl rollout restart deploy/app",
        cwd: "/srv/app",
        timeout: 120000,
        description: "Restart the app",
      }),
    ];
    await question(page, "Bash").waitFor();
    await expect.poll(() => page.locator("#decisions tbody tr").count()).toBe(3);
    await page.keyboard.press("j");
    await page.keyboard.press("j"); // the focus ring shows on the Edit question
    const dir = mkdtempSync(join(tmpdir(), "agentkit-shot-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const shot = join(dir, "inbox.png");
    await page.screenshot({ path: shot, fullPage: true });
    expect(readFileSync(shot).subarray(1, 4).toString()).toBe("PNG");
    if (process.env.AGENTKIT_SCREENSHOTS === "1") copyFileSync(shot, DOCS_SCREENSHOT);
    expect(await page.title()).toBe("(3) agentkit inbox");
    await answerAll(page, 3);
    await Promise.all(pending);
  });
});
