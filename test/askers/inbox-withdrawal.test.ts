/**
 * @module test/askers/inbox-withdrawal.test
 * A question leaves the inbox page with the call it belongs to: two concurrent
 * calls to one guarded served tool (a real MCP client over loopback HTTP, the
 * guard asking an inbox asker), the second cancelled by the client — the page
 * (real Chromium) withdraws the second and keeps the first pending; the first
 * is then approved and runs; a late click on the second is refused with a
 * sentence saying the call is gone. Also: the approval server stops (the
 * question is withdrawn on the page, a late click is refused), and a
 * worker whose store went down denied the call — the question is withdrawn
 * once the store is back, so a late answer cannot claim success.
 */
import "reflect-metadata";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  ApprovalInbox,
  inboxAsker,
  MemoryInboxStore,
  type InboxEvent,
  type InboxStore,
  type StoredQuestion,
} from "../../src/askers/index.js";
import { tool } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { approvalGuard } from "../../src/mcp/approvals/index.js";
import { MCPClient, StreamableHttpServer } from "../../src/mcp/client/index.js";
import { serveRegistry } from "../../src/mcp/serve/index.js";
import { approvalsAsking, loggedInPage, chromiumPerFile } from "./inbox-kit.js";
import { untilValue } from "../helpers/wait.js";

const { browser, cleanups } = chromiumPerFile();

/** A `deploy` tool that requires approval and remembers each target it ran with. */
function deployRecording(ran: string[]) {
  return tool(
    {
      name: "deploy",
      description: "Deploy.",
      input: { type: "object", properties: { target: { type: "string" } }, required: ["target"] },
      sideEffecting: true,
      requiresApproval: true,
    },
    function deploy(input: { target: string }) {
      ran.push(input.target);
      return `deployed ${input.target}`;
    },
  );
}

/** The pending-question article on `page` whose arguments mention `target`. */
const questionFor = (page: Page, target: string) =>
  page.getByRole("article", { name: "mcp__engine__deploy" }).filter({ hasText: `"target": "${target}"` });

describe("inbox withdrawal follows the call", () => {
  it("two concurrent calls to one guarded tool, the second cancelled by the client: the page withdraws the second, not the first", async () => {
    const inbox = await ApprovalInbox.start();
    cleanups.push(() => inbox.stop());
    const { context, page } = await loggedInPage(browser(), inbox);
    cleanups.push(() => context.close());
    const asker = inbox.asker({ source: "engine" });
    const guard = approvalGuard({ asker, ctx: asker });
    const ran: string[] = [];
    const spec = await serveRegistry([deployRecording(ran)], { name: "engine", ctx: makeTestCtx(), guard });
    cleanups.push(() => spec.stop());
    await spec.start();
    const client = await MCPClient.start(new StreamableHttpServer({ url: spec.url!, headers: { ...spec.authHeaders } }));
    cleanups.push(() => client.stop());

    const first = client.callTool("deploy", { target: "staging" });
    await questionFor(page, "staging").waitFor();
    const controller = new AbortController();
    const second = client.callTool("deploy", { target: "prod" }, { signal: controller.signal });
    await questionFor(page, "prod").waitFor();
    controller.abort("the user pressed Esc");
    await expect(second).rejects.toThrow();

    await expect.poll(() => questionFor(page, "prod").getAttribute("data-status")).toBe("withdrawn");
    expect(await questionFor(page, "staging").getAttribute("data-status")).toBe("pending");
    // The withdrawn question stays in view (a late click is told why) but no longer counts as pending.
    expect(await page.locator("#pending-count").textContent()).toBe("1");
    expect(await page.title()).toMatch(/^\(1\) /);

    await questionFor(page, "prod").getByRole("button", { name: "Approve", exact: true }).click({ force: true });
    await expect
      .poll(() => questionFor(page, "prod").locator("[data-role=outcome]").textContent())
      .toMatch(/withdrawn.*Nothing was decided/);

    await questionFor(page, "staging").getByRole("button", { name: "Approve", exact: true }).click();
    const result = await first;
    expect((result.content[0] as { text: string }).text).toBe("deployed staging");
    expect(ran).toEqual(["staging"]);
    // The cancelled call: its client stopped waiting, recorded as a timeout on the client's side.
    expect(guard.decisions.map((d) => [d.source, d.allowed])).toEqual(
      expect.arrayContaining([
        ["timeout", false],
        ["asker", true],
      ]),
    );
  });
});

/** Polls `store` (bounded: 1 s, scaled for the machine) until question `id` is no longer pending; its state then. */
async function settledWithin1s(store: InboxStore, id: string): Promise<StoredQuestion | undefined> {
  return untilValue(
    () => store.get(id),
    (q) => q?.status !== "pending",
    `question ${id} to be settled`,
    1000,
  );
}

/** The one pending question of `store` (waits, bounded: 5 s). */
async function onlyPending(store: InboxStore): Promise<StoredQuestion> {
  await expect.poll(async () => (await store.pending()).length, { timeout: 5000 }).toBe(1);
  return (await store.pending())[0]!;
}

describe("withdrawal when the asking side goes away", () => {
  it("the approval server stops with a prompt pending: the page withdraws it within a second, a late Approve is refused", async () => {
    const inbox = await ApprovalInbox.start();
    cleanups.push(() => inbox.stop());
    const { context, page } = await loggedInPage(browser(), inbox);
    cleanups.push(() => context.close());
    const approvals = await approvalsAsking(inbox.asker({ source: "engine" }));
    cleanups.push(() => approvals.close());
    const answer = approvals.prompt("Bash", { command: "make deploy" }, "toolu_stop").catch((err: unknown) => err);
    const art = page.getByRole("article", { name: "Bash" });
    await art.waitFor();
    const q = await onlyPending(inbox.store);
    await approvals.server.stop();
    expect(await settledWithin1s(inbox.store, q.id)).toMatchObject({
      status: "withdrawn",
      reason: expect.stringContaining("the approval server stopped before anyone answered"),
    });
    await expect.poll(() => art.getAttribute("data-status")).toBe("withdrawn");
    await art.getByRole("button", { name: "Approve", exact: true }).click({ force: true });
    await expect.poll(() => art.locator("[data-role=outcome]").textContent()).toMatch(/withdrawn.*the call is gone.*Nothing was decided/);
    await answer;
    expect(approvals.server.decisions).toMatchObject([{ tool: "Bash", allowed: false, source: "error", asked: true, questionId: q.id }]);
  });

  it("a questionId that is not a plain token is refused by name, nothing is put on the page", async () => {
    const store = new MemoryInboxStore();
    const asker = inboxAsker({ store });
    await expect(asker.ask({ question: "Allow?" }, { signal: new AbortController().signal, questionId: '"><img src=x>' })).rejects.toThrow(
      `InboxAsker.ask: options.questionId must be 1-128 letters, digits, '.', '_', ':' or '-' (the gate passes a UUID), got string "\\"><img src=x>"`,
    );
    expect(await store.pending()).toEqual([]);
  });

  it("a worker whose store went down denied the call; once the store is back the question is withdrawn, so a late Approve cannot succeed", async () => {
    const store = new OutageStore();
    const asker = inboxAsker({ store, source: "worker-1" });
    const decision = asker.ask(
      { question: "Allow deploy?", toolCall: { id: "t1", name: "deploy", arguments: { env: "prod" } }, source: "approval_server" },
      { signal: new AbortController().signal, questionId: "q-outage" },
    );
    const q = await onlyPending(store);
    expect(q.id).toBe("q-outage");
    store.down(new Error("connection terminated"));
    await expect(decision).rejects.toThrow("connection terminated");
    expect((await store.get("q-outage"))?.status).toBe("pending"); // the database is away: nothing could be written
    store.up();
    expect(await settledWithin1s(store, "q-outage")).toMatchObject({
      status: "withdrawn",
      reason: expect.stringContaining("lost the inbox database and denied the call"),
    });
    expect(await store.settle("q-outage", { status: "answered", answer: { kind: "approve", actor: "late" } })).toMatchObject({ ok: false });
  });
});

/**
 * The in-process store with an outage switch, the way a shared store behaves
 * when its database goes away: writes fail and subscribers hear
 * `unavailable`; when it is back they hear `available`.
 */
class OutageStore extends MemoryInboxStore {
  #down: Error | undefined;
  readonly #listeners = new Set<(event: InboxEvent) => void>();

  down(error: Error): void {
    this.#down = error;
    for (const l of [...this.#listeners]) l({ type: "unavailable", error });
  }

  up(): void {
    this.#down = undefined;
    for (const l of [...this.#listeners]) l({ type: "available" });
  }

  override settle(...args: Parameters<MemoryInboxStore["settle"]>): ReturnType<MemoryInboxStore["settle"]> {
    return this.#down ? Promise.reject(this.#down) : super.settle(...args);
  }

  override subscribe(listener: (event: InboxEvent) => void): () => void {
    this.#listeners.add(listener);
    const off = super.subscribe(listener);
    return () => {
      this.#listeners.delete(listener);
      off();
    };
  }
}
