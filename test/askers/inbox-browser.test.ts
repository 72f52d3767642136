/**
 * @module test/askers/inbox-browser.test
 * The approval inbox in a real browser (Debian Chromium, headless, driven by
 * playwright-core), answering a real ApprovalServer called over loopback the
 * way the Claude CLI calls it: questions arrive without a reload; Approve,
 * Reject with a note and Modify each reach the CLI and the audit with source
 * `asker` and the actor typed on the page; bad JSON is refused (page and
 * server) and decides nothing; a timed-out question says so and its buttons
 * decide nothing. (The README's screenshot is inbox-page.test.ts's.)
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { ApprovalInbox } from "../../src/askers/index.js";
import { approvalGuard } from "../../src/mcp/approvals/index.js";
import { approvalsAsking, loggedInPage, chromiumPerFile, SESSION } from "./inbox-kit.js";

// The few browser globals the page.evaluate callbacks use (the test tsconfig has no DOM lib).
declare const window: { marker?: number };
declare const document: { activeElement: { textContent: string | null; getAttribute(name: string): string | null } | null };
declare const sessionStorage: Record<string, string>;

const { browser, cleanups } = chromiumPerFile();

/** An inbox, a logged-in page on it, and an ApprovalServer (source "engine") asking it. */
async function setup(serverOptions: { timeoutMs?: number } = {}) {
  const inbox = await ApprovalInbox.start();
  cleanups.push(() => inbox.stop());
  const { context, page } = await loggedInPage(browser(), inbox);
  cleanups.push(() => context.close());
  const approvals = await approvalsAsking(inbox.asker({ source: "engine" }), serverOptions);
  cleanups.push(() => approvals.close());
  return { inbox, context, page, ...approvals };
}

const question = (page: Page, tool: string) => page.getByRole("article", { name: tool });

describe("ApprovalInbox in Chromium", () => {
  it("a question appears without a reload; Approve answers the CLI allow, source asker, actor the session, the typed name as claimed", async () => {
    const { page, server, prompt } = await setup();
    expect(page.url()).toMatch(/\/inbox\/$/);
    await page.evaluate(() => (window.marker = 42));
    await page.getByLabel("Your name", { exact: false }).fill("ada");
    const answer = prompt("Write", { file_path: "notes.txt", content: "hi" }, "toolu_1");
    const art = question(page, "Write");
    await art.waitFor();
    await expect.poll(() => art.locator("pre.args").textContent()).toContain('"file_path": "notes.txt"');
    expect(await art.textContent()).toMatch(/asked by the approval server · from engine/);
    expect(await art.getByRole("timer").count()).toBe(0); // no deadline on this server
    // the announcement is set 30 ms after the question is inserted (so a screen reader hears a change): poll for it
    await expect.poll(() => page.getByRole("status").first().textContent()).toContain("New question: Write from engine");
    await art.getByRole("button", { name: "Approve", exact: true }).click();
    expect(await answer).toEqual({ behavior: "allow", updatedInput: { file_path: "notes.txt", content: "hi" } });
    expect(server.decisions).toHaveLength(1);
    expect(server.decisions[0]).toMatchObject({
      tool: "Write",
      allowed: true,
      source: "asker",
      asked: true,
      kind: "approve",
      actor: expect.stringMatching(SESSION),
      claimedActor: "ada",
    });
    await art.waitFor({ state: "detached" });
    const row = page.locator("#decisions tbody tr").first();
    await expect
      .poll(() => row.locator("td").allTextContents())
      .toEqual(
        expect.arrayContaining([
          "Write",
          "yes",
          "asker",
          expect.stringMatching(/^inbox session \d+ \([0-9a-f]{6}\) claims “ada”$/),
          "engine",
        ]),
      );
    expect(await page.evaluate(() => window.marker)).toBe(42);
  });

  it("Reject asks for a Note; the CLI is denied with it verbatim, actor the session, no name claimed", async () => {
    const { page, server, prompt } = await setup();
    const answer = prompt("Bash", { command: "rm -rf build" });
    const art = question(page, "Bash");
    await art.getByRole("button", { name: "Reject", exact: true }).click();
    const note = art.getByLabel("Note");
    await expect.poll(() => note.evaluate((el) => el === document.activeElement)).toBe(true);
    await note.fill("not on a Friday");
    await art.getByRole("button", { name: "Confirm rejection" }).click();
    expect(await answer).toEqual({ behavior: "deny", message: "not on a Friday" });
    expect(server.decisions[0]).toMatchObject({
      tool: "Bash",
      allowed: false,
      source: "asker",
      kind: "reject",
      actor: expect.stringMatching(SESSION),
      reason: "not on a Friday",
    });
    await expect
      .poll(() => page.locator("#decisions tbody tr").first().locator("td").allTextContents())
      .toEqual(expect.arrayContaining(["Bash", "no", "asker", expect.stringMatching(SESSION), "not on a Friday"]));
  });

  it("Modify: invalid JSON is refused with the parse error (in the page and on the server) and decides nothing; fixed JSON is what runs", async () => {
    const { page, server, prompt } = await setup();
    let settled = false;
    const answer = prompt("Edit", { path: "a.txt" }).finally(() => (settled = true));
    const art = question(page, "Edit");
    await art.getByRole("button", { name: "Modify", exact: true }).click();
    const args = art.getByLabel("Arguments (JSON)");
    expect(JSON.parse(await args.inputValue())).toEqual({ path: "a.txt" });
    await args.fill('{"path": "b.txt",}');
    await art.getByRole("button", { name: "Save and approve" }).click();
    const error = art.getByRole("alert");
    await expect.poll(() => error.textContent()).toMatch(/^not valid JSON: .+\. The arguments must be a JSON object/);
    await args.fill("[1, 2]");
    await art.getByRole("button", { name: "Save and approve" }).click();
    await expect.poll(() => error.textContent()).toMatch(/^not a JSON object: got an array/);
    // The server checks again: the same request the page would send, bypassing the page's check.
    const id = await art.getAttribute("data-id");
    const direct = await page.evaluate(async (qid) => {
      const key = Object.values(sessionStorage)[0]!;
      const res = await fetch("answer", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Agentkit-Session": key },
        body: JSON.stringify({ id: qid, kind: "modify", arguments: "{nope" }),
      });
      return { status: res.status, body: await res.json() };
    }, id);
    expect(direct.status).toBe(400);
    expect(direct.body).toMatchObject({ field: "arguments", error: expect.stringMatching(/^not valid JSON: /) });
    expect(server.decisions).toHaveLength(0);
    expect(settled).toBe(false);
    expect(await art.getAttribute("data-status")).toBe("pending");
    await args.fill('{"path": "b.txt", "dry_run": true}');
    await art.getByRole("button", { name: "Save and approve" }).click();
    expect(await answer).toEqual({ behavior: "allow", updatedInput: { path: "b.txt", dry_run: true } });
    expect(server.decisions[0]).toMatchObject({
      tool: "Edit",
      allowed: true,
      source: "asker",
      kind: "modify",
      actor: expect.stringMatching(SESSION),
      updatedArguments: { path: "b.txt", dry_run: true },
    });
  });

  it("a question that times out shows as timed out; its buttons tell so and decide nothing", async () => {
    // 4 s: the countdown is drawn (rounded up) while time is left, also when the page is slow to show the question
    const { page, server, prompt } = await setup({ timeoutMs: 4000 });
    const answer = prompt("Deploy", { env: "prod" });
    const art = question(page, "Deploy");
    await expect.poll(() => art.getByRole("timer").textContent()).toMatch(/time left 0:0[1-4]/);
    expect(await answer).toMatchObject({ behavior: "deny" });
    await expect.poll(() => art.getAttribute("data-status")).toBe("timed_out");
    expect(await art.textContent()).toContain("Timed out");
    expect(await art.getByRole("button", { name: "Approve", exact: true }).getAttribute("aria-disabled")).toBe("true");
    // aria-disabled makes Playwright wait for the button to be enabled; force sends the real click anyway.
    await art.getByRole("button", { name: "Approve", exact: true }).click({ force: true });
    await expect
      .poll(() => art.locator("[data-role=outcome]").textContent())
      .toMatch(/timed out before your answer arrived.*Nothing was decided/);
    await art.getByRole("button", { name: "Reject", exact: true }).focus();
    await page.keyboard.press("Enter");
    await art.getByRole("button", { name: "Confirm rejection" }).click();
    await expect.poll(() => art.locator("[data-role=outcome]").textContent()).toMatch(/Nothing was decided/);
    expect(server.decisions).toHaveLength(1);
    expect(server.decisions[0]).toMatchObject({ tool: "Deploy", allowed: false, source: "timeout", actor: null });
    await expect
      .poll(() => page.locator("#decisions tbody tr").first().locator("td").allTextContents())
      .toEqual(expect.arrayContaining(["Deploy", "no", "timeout"]));
  });

  it("works from the keyboard alone: Tab to the buttons, Enter to open Reject, type, Enter to send", async () => {
    const { page, prompt } = await setup();
    const answer = prompt("Read", { path: "/etc/hosts" });
    const art = question(page, "Read");
    await art.waitFor();
    await art.getByRole("button", { name: "Approve", exact: true }).focus();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Reject");
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("note");
    await page.keyboard.type("keyboard says no");
    await page.keyboard.press("Enter");
    expect(await answer).toEqual({ behavior: "deny", message: "keyboard says no" });
  });

  it("one inbox, many askers: two ApprovalServers and a server-side guard ask at once, each question shows which, each gets its own answer", async () => {
    const { page, inbox, prompt: engine, server: engineServer } = await setup();
    const deploy = await approvalsAsking(inbox.asker({ source: "deploy" }));
    cleanups.push(() => deploy.close());
    const billingAsker = inbox.asker({ source: "billing-module" });
    const guard = approvalGuard({ asker: billingAsker, ctx: billingAsker });
    const fromEngine = engine("Write", { file_path: "a.txt" });
    const fromDeploy = deploy.prompt("Write", { file_path: "b.txt" });
    const fromGuard = guard({
      tool: { requiresApproval: true },
      name: "refund",
      qualifiedName: "mcp__billing__refund",
      arguments: { order: 17 },
    });
    const writes = page.getByRole("article", { name: "Write" });
    await expect.poll(() => writes.count()).toBe(2);
    const refund = question(page, "mcp__billing__refund");
    expect(await refund.locator(".from").textContent()).toBe("billing-module");
    expect(await refund.textContent()).toContain("asked by the approval guard");
    expect((await refund.getByRole("heading").innerText()).replace(/\s+/g, " ")).toBe(
      "refund, a tool of the billing server mcp__billing__refund",
    );
    const byFrom = (from: string) => writes.filter({ has: page.locator(".from", { hasText: new RegExp(`^${from}$`) }) });
    expect(await byFrom("deploy").locator("pre.args").textContent()).toContain("b.txt");
    await byFrom("deploy").getByRole("button", { name: "Reject", exact: true }).click();
    await byFrom("deploy").getByLabel("Note").fill("deploys are frozen");
    await byFrom("deploy").getByRole("button", { name: "Confirm rejection" }).click();
    await byFrom("engine").getByRole("button", { name: "Approve", exact: true }).click();
    await refund.getByRole("button", { name: "Approve", exact: true }).click();
    expect(await fromDeploy).toEqual({ behavior: "deny", message: "deploys are frozen" });
    expect(await fromEngine).toEqual({ behavior: "allow", updatedInput: { file_path: "a.txt" } });
    expect(await fromGuard).toEqual({ allowed: true });
    expect(engineServer.decisions.map((d) => d.allowed)).toEqual([true]);
    expect(deploy.server.decisions.map((d) => d.allowed)).toEqual([false]);
    expect(guard.decisions[0]).toMatchObject({
      tool: "mcp__billing__refund",
      allowed: true,
      source: "asker",
      via: "mcp_guard",
      actor: expect.stringMatching(SESSION),
    });
    const rows = page.locator("#decisions tbody tr");
    await expect.poll(() => rows.count()).toBe(3);
    expect((await rows.allTextContents()).map((t) => /engine|deploy|billing-module/.exec(t)?.[0]).sort()).toEqual([
      "billing-module",
      "deploy",
      "engine",
    ]);
  });
});
