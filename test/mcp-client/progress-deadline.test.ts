/**
 * @module test/mcp-client/progress-deadline.test
 * The package's own client waits for its own server (issue #43 point 3): a
 * served call waiting on a person sends a heartbeat (`notifications/progress`)
 * every 30 s, and each one restarts `callTool`'s deadline, so a person may
 * answer long after `timeoutMs`; silence still ends the call at `timeoutMs`.
 * Real loopback socket, 2025-11-25 (on 2026-07-28 such a call is a task);
 * vitest's clock drives both the server's heartbeat and the client's deadline,
 * so the test waits for the beats (real I/O), never for time.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { tool, type Decision } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { approvalGuard, MCPClient, serveRegistry, StreamableHttpServer } from "../../src/mcp/index.js";
import type { CallProgress } from "../../src/mcp/client/index.js";

afterEach(() => vi.useRealTimers());

const deploy = tool({ name: "deploy", description: "Deploy.", requiresApproval: true }, () => "deployed");

/** A person the test answers for: `asked` resolves when the guard asks, `answer()` decides. */
function personAnswering(): { ask: () => Promise<Decision>; asked: Promise<void>; answer: (d: Decision) => void } {
  let asked!: () => void;
  let answer!: (d: Decision) => void;
  const askedP = new Promise<void>((r) => (asked = r));
  const decided = new Promise<Decision>((r) => (answer = r));
  return { ask: () => (asked(), decided), asked: askedP, answer: (d) => answer(d) };
}

/** Progress reports as they arrive, and a wait for the n-th (real I/O: the beat crosses the socket). */
function progressLog(): { onProgress: (p: CallProgress) => void; seen: CallProgress[]; reached: (n: number) => Promise<void> } {
  const seen: CallProgress[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  return {
    seen,
    onProgress: (p) => {
      seen.push(p);
      for (const w of waiters.filter((x) => seen.length >= x.n)) w.resolve();
    },
    reached: (n) => (seen.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
  };
}

async function servedDeploy(person: ReturnType<typeof personAnswering>) {
  const spec = await serveRegistry([deploy], { name: "ops", ctx: makeTestCtx(), guard: approvalGuard({ asker: person }) });
  await spec.start();
  const client = await MCPClient.start(
    new StreamableHttpServer({ url: spec.url!, headers: { ...spec.authHeaders }, protocol: "2025-11-25" }),
  );
  return { spec, client, [Symbol.asyncDispose]: async () => (await client.stop(), await spec.stop()) };
}

describe("callTool's deadline and the server's heartbeat", () => {
  it("each heartbeat restarts timeoutMs: a person answering after 100 s (timeoutMs 45 s) gets the tool run", async () => {
    const person = personAnswering();
    await using served = await servedDeploy(person);
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const progress = progressLog();
    let settled: unknown = "pending";
    const call = served.client.callTool("deploy", {}, { timeoutMs: 45_000, onProgress: progress.onProgress }).then(
      (r) => (settled = r),
      (e: unknown) => (settled = e),
    );
    await person.asked;
    for (let beat = 1; beat <= 3; beat++) {
      await vi.advanceTimersByTimeAsync(30_000);
      await Promise.race([progress.reached(beat), call]);
      expect(settled, `the call ended before beat ${beat}`).toBe("pending");
    }
    await vi.advanceTimersByTimeAsync(10_000);
    expect(settled, "the call ended before the person answered (100 s in)").toBe("pending");
    expect(progress.seen.map((p) => p.message)).toEqual([
      "'deploy' is waiting for approval (30s)",
      "'deploy' is waiting for approval (1m 0s)",
      "'deploy' is waiting for approval (1m 30s)",
    ]);
    person.answer({ kind: "approve", actor: "ops" });
    await call;
    expect(settled).toMatchObject({ content: [{ type: "text", text: "deployed" }] });
  });

  it("silence still ends the call at timeoutMs (a server that sends no progress)", async () => {
    const person = personAnswering();
    const spec = await serveRegistry([deploy], {
      name: "ops",
      ctx: makeTestCtx(),
      heartbeatMs: 0,
      guard: approvalGuard({ asker: person }),
    });
    await spec.start();
    await using client = await MCPClient.start(
      new StreamableHttpServer({ url: spec.url!, headers: { ...spec.authHeaders }, protocol: "2025-11-25" }),
    );
    try {
      vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
      let settled: unknown = "pending";
      const call = client.callTool("deploy", {}, { timeoutMs: 45_000, onProgress: () => {} }).then(
        (r) => (settled = r),
        (e: unknown) => (settled = e),
      );
      await person.asked;
      await vi.advanceTimersByTimeAsync(44_999);
      expect(settled).toBe("pending");
      await vi.advanceTimersByTimeAsync(1);
      await call;
      expect(settled).toMatchObject({ code: "mcp_request", message: expect.stringMatching(/tools\/call 'deploy'.*timed out/i) });
    } finally {
      person.answer({ kind: "reject", actor: "test" });
      vi.useRealTimers();
      await spec.stop();
    }
  });
});
