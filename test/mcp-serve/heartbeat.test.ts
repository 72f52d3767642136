/**
 * @module test/mcp-serve/heartbeat.test
 * Heartbeats over a real loopback session: a pending served call (a slow
 * tool, or a guard waiting on a person) and a pending approval prompt send
 * `notifications/progress` on the call's own token whenever they have been
 * silent for `heartbeatMs`, with values that only increase and never move a
 * tool's own progress scale; nothing with `heartbeatMs: 0`; and what
 * `codexOptions()` tells Codex to wait. The real CLIs: test/cli/human-paced.test.ts.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { tool, type Decision } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { ApprovalServer, approvalGuard, serveRegistry } from "../../src/mcp/index.js";
import { settledOnFakeTime } from "../helpers/wait.js";

/** A wait on the (fake, see {@link onFakeClock}) clock: the tool's silence and the person's pause. */
const silentFor = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms)); // on the fake clock

/**
 * Heartbeats are about time: each call runs on a fake clock (the timers and
 * Date; the sockets stay real), advanced 25 ms a step until the call answers.
 */
function onFakeClock<T>(call: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
  return settledOnFakeTime(call(), 25);
}
afterEach(() => void vi.useRealTimers());

/** A tool that is silent for `ms`, reports progress 3 of 10, then is silent for `ms` again. */
const slow = (ms: number) =>
  tool({ name: "slow", description: "Slow.", sideEffecting: false }, async (_i, ctx) => {
    await silentFor(ms);
    ctx.progress(3, 10, "three of ten");
    await silentFor(ms);
    return "slow done";
  });

const deploy = tool({ name: "deploy", description: "Deploy.", requiresApproval: true }, () => "deployed");

async function clientFor(url: string, headers: Record<string, string> = {}): Promise<Client & AsyncDisposable> {
  const c = new Client({ name: "heartbeat-test", version: "0" });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers },
      fetch: (u, init) => fetch(u, init?.signal ? { ...init, signal: AbortSignal.any([init.signal]) } : init),
    }),
  );
  return Object.assign(c, { [Symbol.asyncDispose]: () => c.close() });
}

function expectIncreasing(seen: Progress[]): void {
  for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
}

describe("heartbeats while a call is pending", () => {
  it("a slow tool's client hears 'still running' while it is silent, and the tool's own values keep their scale", async () => {
    await using spec = await serveRegistry([slow(450)], { name: "hb", ctx: makeTestCtx(), auth: "none", heartbeatMs: 100 });
    await spec.start();
    await using c = await clientFor(spec.url!);
    const seen: Progress[] = [];
    const r = await onFakeClock(() => c.callTool({ name: "slow", arguments: {} }, undefined, { onprogress: (p) => seen.push(p) }));
    expect(r.content).toEqual([{ type: "text", text: "slow done" }]);
    const beats = seen.filter((p) => p.message?.startsWith("'slow' is still running ("));
    expect(beats.length).toBeGreaterThanOrEqual(4);
    expect(seen).toContainEqual({ progress: 3, total: 10, message: "three of ten" });
    expectIncreasing(seen);
    // a beat after the tool's 3 is 3 and a millionth or so: the tool's scale is kept
    const after = seen.slice(seen.findIndex((p) => p.total === 10) + 1);
    expect(after.length).toBeGreaterThan(0);
    for (const p of after) expect(p.progress).toBeLessThan(3.001);
  });

  it("a guard waiting on a person: 'waiting for approval', then the tool runs", async () => {
    const person = { ask: async (): Promise<Decision> => (await silentFor(400), { kind: "approve", actor: "ops" }) };
    await using spec = await serveRegistry([deploy], {
      name: "hb",
      ctx: makeTestCtx(),
      auth: "none",
      heartbeatMs: 100,
      guard: approvalGuard({ asker: person }),
    });
    await spec.start();
    await using c = await clientFor(spec.url!);
    const seen: Progress[] = [];
    const r = await onFakeClock(() => c.callTool({ name: "deploy", arguments: {} }, undefined, { onprogress: (p) => seen.push(p) }));
    expect(r.content).toEqual([{ type: "text", text: "deployed" }]);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const p of seen) expect(p.message).toMatch(/^'deploy' is waiting for approval \(\d+s\)$/);
    expectIncreasing(seen);
  });

  it("heartbeatMs 0: nothing but the tool's own progress", async () => {
    await using spec = await serveRegistry([slow(250)], { name: "hb", ctx: makeTestCtx(), auth: "none", heartbeatMs: 0 });
    await spec.start();
    await using c = await clientFor(spec.url!);
    const seen: Progress[] = [];
    await onFakeClock(() => c.callTool({ name: "slow", arguments: {} }, undefined, { onprogress: (p) => seen.push(p) }));
    expect(seen).toEqual([{ progress: 3, total: 10, message: "three of ten" }]);
  });

  it("an approval prompt waiting on a person: the CLI hears 'waiting for a person to approve'", async () => {
    const person = { ask: async (): Promise<Decision> => (await silentFor(400), { kind: "approve", actor: "ops" }) };
    await using approvals = new ApprovalServer({ asker: person, heartbeatMs: 100 });
    await approvals.start();
    await using c = await clientFor(approvals.url!, { ...approvals.authHeaders });
    const seen: Progress[] = [];
    const r = await onFakeClock(() =>
      c.callTool({ name: "approve", arguments: { tool_name: "Bash", input: { command: "make" } } }, undefined, {
        onprogress: (p) => seen.push(p),
      }),
    );
    expect(JSON.parse((r.content as Array<{ text: string }>)[0]!.text)).toEqual({ behavior: "allow", updatedInput: { command: "make" } });
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const p of seen) expect(p.message).toMatch(/^waiting for a person to approve 'Bash' \(\d+s\)$/);
    expectIncreasing(seen);
  });

  it("heartbeatMs is checked where it is given", async () => {
    const ctx = makeTestCtx();
    await expect(serveRegistry([deploy], { name: "hb", ctx, heartbeatMs: -1 })).rejects.toThrow(
      /serveRegistry: heartbeatMs must be a whole number of milliseconds from 0 \(no heartbeat\) to 2147483647 \(default 30000\), got number -1/,
    );
    expect(() => new ApprovalServer({ asker: { ask: async () => ({ kind: "approve" }) }, heartbeatMs: 1.5 })).toThrow(
      /ApprovalServer: heartbeatMs must be a whole number/,
    );
  });
});

describe("what codexOptions() tells Codex to wait for one call", () => {
  it.each([
    { options: {}, sec: 31_536_000 },
    { options: { timeoutMs: 600_000 }, sec: 630 },
    { options: { timeoutMs: 1_500 }, sec: 32 },
    { options: { heartbeatMs: 0 }, sec: undefined },
  ])("$options -> tool_timeout_sec $sec", async ({ options, sec }) => {
    await using spec = await serveRegistry([deploy], { name: "engine", ctx: makeTestCtx(), ...options });
    expect(spec.codexOptions().config["mcp_servers.engine.tool_timeout_sec"]).toBe(sec);
    expect(spec.toolTimeoutSec).toBe(sec ?? null);
  });
});
