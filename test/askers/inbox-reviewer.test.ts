/**
 * @module test/askers/inbox-reviewer.test
 * What the reviewer reads and what the page lets through, in real Chromium:
 * each pending question names its worker and shows its age and deadline; the
 * decisions list shows the arguments (compact, expandable); a Modify the
 * gate would refuse (100,000 levels deep) is refused on the page, saying
 * why, and decides nothing; pending questions and live streams are capped,
 * with a message.
 */
import { describe, expect, it } from "vitest";
import { ApprovalInbox, MemoryInboxStore } from "../../src/askers/index.js";
import { logIn, sessionHeaders } from "../agentkit-cli/inbox-page.js";
import { approvalsAsking, loggedInPage, chromiumPerFile } from "./inbox-kit.js";

const { browser, cleanups } = chromiumPerFile();

async function setup(options: { store?: MemoryInboxStore; worker?: string; timeoutMs?: number } = {}) {
  const inbox = await ApprovalInbox.start(options.store ? { store: options.store } : {});
  cleanups.push(() => inbox.stop());
  const { context, page } = await loggedInPage(browser(), inbox);
  cleanups.push(() => context.close());
  const approvals = await approvalsAsking(
    inbox.asker({ source: "engine", ...(options.worker ? { worker: options.worker } : {}) }),
    options.timeoutMs ? { timeoutMs: options.timeoutMs } : {},
  );
  cleanups.push(() => approvals.close());
  return { inbox, page, ...approvals };
}

describe("what the reviewer reads", () => {
  it("a question names its worker and shows its age and deadline; the decisions list shows the arguments, compact and expandable", async () => {
    const { page, prompt } = await setup({ worker: "build-3", timeoutMs: 600_000 });
    const long = { command: `deploy --env prod ${"--flag ".repeat(20)}`, target: "prod" };
    const answer = prompt("Bash", long);
    const art = page.getByRole("article", { name: "Bash" });
    await art.waitFor();
    expect(await art.locator(".worker").textContent()).toBe("build-3");
    expect(await art.textContent()).toMatch(
      /from engine · worker build-3 · asked \d\d:\d\d:\d\d, waiting 0:0\d · deadline \d\d:\d\d:\d\d \(time left (9:59|10:00)\)/,
    );
    await expect.poll(() => art.locator(".age").textContent(), { timeout: 5000 }).toMatch(/waiting 0:0[2-9]/);
    await art.getByRole("button", { name: "Approve", exact: true }).click();
    await answer;
    const short = prompt("Read", { path: "a.txt" });
    await page.getByRole("article", { name: "Read" }).getByRole("button", { name: "Approve", exact: true }).click();
    await short;
    const rows = page.locator("#decisions tbody tr");
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(0).locator("td.args").textContent()).toBe('{"path":"a.txt"}');
    const cell = rows.nth(1).locator("td.args");
    expect(await cell.locator("summary").textContent()).toMatch(/^\{"command":"deploy --en.*…\d+ cut….*"target":"prod"\}$/);
    expect(await cell.locator("pre").isVisible()).toBe(false);
    await cell.locator("summary").click();
    expect(JSON.parse((await cell.locator("pre").textContent())!)).toEqual(long);
  });
});

describe("what the page lets through", () => {
  it("Modify with arguments 100,000 levels deep is refused on the page with the gate's reason; nothing is decided", async () => {
    const { page, prompt, server } = await setup();
    let settled = false;
    const answer = prompt("Edit", { path: "a.txt" }).finally(() => (settled = true));
    const art = page.getByRole("article", { name: "Edit" });
    await art.getByRole("button", { name: "Modify", exact: true }).click();
    const deep = `{"path": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    await art.getByLabel("Arguments (JSON)").fill(deep);
    await art.getByRole("button", { name: "Save and approve" }).click();
    await expect
      .poll(() => art.getByRole("alert").textContent())
      .toMatch(
        /^the gate would refuse these arguments \(the arguments\.path(\[0\])+ is nested deeper than 256 levels\); nothing was decided/,
      );
    expect(await art.locator("[data-role=outcome]").textContent()).not.toMatch(/Approved/);
    expect(await art.getAttribute("data-status")).toBe("pending");
    expect(settled).toBe(false);
    expect(server.decisions).toHaveLength(0);
    await art.getByLabel("Arguments (JSON)").fill('{"path": "b.txt"}');
    await art.getByRole("button", { name: "Save and approve" }).click();
    expect(await answer).toEqual({ behavior: "allow", updatedInput: { path: "b.txt" } });
  });

  it("pending questions are capped: one past the cap is denied at once, saying why; the page keeps working", async () => {
    const { page, prompt } = await setup({ store: new MemoryInboxStore({ maxPending: 2 }) });
    // Three different tools: today a denied question withdraws the oldest pending one of the same tool (matched by name, gate's to fix).
    const first = prompt("Bash", { command: "one" });
    const second = prompt("Write", { file_path: "two" });
    await expect.poll(() => page.locator("article").count()).toBe(2);
    expect(await prompt("Edit", { file_path: "three" })).toMatchObject({
      behavior: "deny",
      message: expect.stringContaining("already holds 2 pending questions"),
    });
    for (const tool of ["Bash", "Write"])
      await page.getByRole("article", { name: tool }).getByRole("button", { name: "Approve", exact: true }).click();
    expect(await Promise.all([first, second])).toMatchObject([{ behavior: "allow" }, { behavior: "allow" }]);
    // Room again: the next question is asked.
    const fourth = prompt("Read", { path: "four" });
    await page.getByRole("article", { name: "Read" }).getByRole("button", { name: "Approve", exact: true }).click();
    expect(await fourth).toMatchObject({ behavior: "allow", updatedInput: { path: "four" } });
    expect(() => new MemoryInboxStore({ maxPending: 0 })).toThrow(/maxPending must be a positive integer, got number 0/);
  });

  it("live streams are capped per session: past the cap, 429 with a message", async () => {
    const inbox = await ApprovalInbox.start();
    cleanups.push(() => inbox.stop());
    const session = await logIn(inbox.loginUrl);
    const abort = new AbortController();
    cleanups.push(() => abort.abort());
    const open = (): Promise<Response> => fetch(`${inbox.url}events`, { headers: sessionHeaders(session), signal: abort.signal });
    const streams = await Promise.all(Array.from({ length: 8 }, open));
    expect(streams.map((r) => r.status)).toEqual(Array(8).fill(200));
    const refused = await open();
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: expect.stringContaining("already has 8 live streams open") });
    // Closing one frees its place.
    await streams[0]!.body!.cancel();
    await expect
      .poll(async () => {
        const r = await open();
        const s = r.status;
        if (s === 200) await r.body!.cancel();
        else await r.text();
        return s;
      })
      .toBe(200);
  });
});
