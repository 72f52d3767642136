/**
 * @module test/cli/claude-2026.test
 * The pinned Claude Code (2.1.332, default settings) against a served module
 * and the approval server, on the 2026-07-28 protocol for real: a request log
 * between the CLI and each endpoint shows what it sent — `server/discover`
 * first, never `initialize`, `tools/call` carrying 2026-07-28 in its header
 * and envelope — while the tool body runs in this process and the approval
 * prompt (`--permission-prompt-tool`) allows, denies, modifies and expires.
 */
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent, tool, type Asker, type Decision } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { ApprovalServer, serveRegistry } from "../../src/mcp/index.js";
import { APPROVAL_SERVER_NAME } from "../../src/mcp/approvals/index.js";
import { hermeticClaude } from "./kit/cognitions.js";
import { FakeAnthropic } from "./kit/fake-anthropic.js";
import { E2E_TIMEOUT_MS, Hermetic } from "./kit/hermetic.js";
import { WireLogProxy } from "./kit/wire-log-proxy.js";

/** A 0600 MCP config naming `url` (a request-log proxy) with `headers`, as the CLI reads it. */
function configFor(h: Hermetic, name: string, url: string, headers: Record<string, string>): string {
  const path = join(h.tmp, `${name}.json`);
  writeFileSync(path, JSON.stringify({ mcpServers: { [name]: { type: "http", url, headers } } }), { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}

function engine(seen: string[]) {
  return tool(
    {
      name: "run_check",
      description: "Run the named check.",
      sideEffecting: false,
      input: { type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false },
    },
    ({ name }: { name: string }) => {
      seen.push(name);
      return `check ${name}: PASSED in ${process.pid}`;
    },
  );
}

/** What the log must show for a 2026-07-28 conversation: discover first, no initialize, every request on 2026-07-28 without a session. */
function expect2026(proxy: WireLogProxy): void {
  expect(proxy.log[0]).toMatchObject({ method: "server/discover", protocolHeader: "2026-07-28", envelopeVersion: "2026-07-28" });
  expect(proxy.methods()).not.toContain("initialize");
  const calls = proxy.log.filter((l) => l.method === "tools/call");
  expect(calls.length).toBeGreaterThan(0);
  for (const l of proxy.log) expect(l).toMatchObject({ protocolHeader: "2026-07-28", envelopeVersion: "2026-07-28", session: undefined });
}

describe("Claude Code 2.1.332 on 2026-07-28 (real binary, request log)", { timeout: E2E_TIMEOUT_MS }, () => {
  it("opens with server/discover, sends no initialize, and tools/call on 2026-07-28 runs the tool body in this process", async () => {
    await using h = Hermetic.create();
    const ctx = makeTestCtx();
    const seen: string[] = [];
    await using spec = await serveRegistry([engine(seen)], { name: "engine", ctx });
    await spec.start();
    await using proxy = await WireLogProxy.start(spec.url!);
    await using api = await FakeAnthropic.start([
      { toolUses: [{ name: "mcp__engine__run_check", input: { name: "lint" } }] },
      { text: "lint passed" },
    ]);
    const cognition = hermeticClaude(h, api, {
      allowedTools: spec.autoApprove,
      mcpConfig: [configFor(h, "engine", proxy.url, { ...spec.authHeaders })],
      strictMcpConfig: true,
      builtinTools: false,
    });
    const result = await new Agent({ name: "dev", cognition }).run("check lint", ctx);
    expect(result.error).toBeUndefined();
    expect(seen).toEqual(["lint"]);
    expect(api.toolResults()).toMatchObject([
      { type: "tool_result", content: [{ type: "text", text: `check lint: PASSED in ${process.pid}` }] },
    ]);
    expect2026(proxy);
    expect(proxy.log.find((l) => l.method === "tools/call")!.params).toMatchObject({ name: "run_check", arguments: { name: "lint" } });
  });

  it("a served tool calling ctx.elicit() on 2026-07-28: Claude retries the input_required call with inputResponses and the same requestState, and the run ends normally with its answer", async () => {
    await using h = Hermetic.create();
    const ctx = makeTestCtx();
    const answers: string[] = [];
    let started = 0;
    const confirm = tool(
      { name: "confirm", description: "Asks before it acts.", sideEffecting: false, input: { type: "object", properties: {} } },
      async (_args: Record<string, never>, c) => {
        started++;
        const answer = await c.elicit({
          message: "Proceed with the release?",
          requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
        });
        answers.push(answer.action);
        return `asked: ${answer.action}`;
      },
    );
    await using spec = await serveRegistry([confirm], { name: "engine", ctx });
    await spec.start();
    await using proxy = await WireLogProxy.start(spec.url!);
    await using api = await FakeAnthropic.start([{ toolUses: [{ name: "mcp__engine__confirm", input: {} }] }, { text: "done" }]);
    const cognition = hermeticClaude(h, api, {
      allowedTools: spec.autoApprove,
      mcpConfig: [configFor(h, "engine", proxy.url, { ...spec.authHeaders })],
      strictMcpConfig: true,
      builtinTools: false,
    });
    const result = await new Agent({ name: "dev", cognition }).run("release", ctx);
    expect(result.error).toBeUndefined();
    // What arrives from Claude in -p mode (no UI to ask anyone): a cancel, which the same run receives and ends with.
    expect(answers).toEqual(["cancel"]);
    expect(started).toBe(1);
    expect(api.toolResults()).toMatchObject([{ type: "tool_result", content: [{ type: "text", text: "asked: cancel" }] }]);
    expect2026(proxy);
    const calls = proxy.log
      .filter((l) => l.method === "tools/call")
      .map((l) => l.params as { requestState?: unknown; inputResponses?: Record<string, unknown> });
    expect(calls).toHaveLength(2);
    expect(calls[0]!.requestState).toBeUndefined();
    expect(typeof calls[1]!.requestState).toBe("string");
    expect(Object.values(calls[1]!.inputResponses ?? {})).toMatchObject([{ action: "cancel" }]);
  });

  it.each([
    { kind: "approve", seen: ["lint"], allowed: true },
    { kind: "reject", seen: [], allowed: false },
    { kind: "modify", seen: ["typecheck"], allowed: true },
    { kind: "deadline", seen: [], allowed: false },
  ] as const)("the approval prompt through --permission-prompt-tool on 2026-07-28: $kind", async ({ kind, seen: expected, allowed }) => {
    await using h = Hermetic.create();
    const ctx = makeTestCtx();
    const seen: string[] = [];
    await using spec = await serveRegistry([engine(seen)], { name: "engine", ctx });
    await spec.start();
    let asked = 0;
    const reviewer: Asker = {
      ask: async (): Promise<Decision> => {
        asked++;
        if (kind === "deadline") return new Promise<Decision>(() => {});
        return kind === "modify"
          ? { kind, actor: "ops", value: { name: "typecheck" } }
          : { kind, actor: "ops", note: kind === "reject" ? "not today" : undefined };
      },
    };
    await using approvals = new ApprovalServer({ asker: reviewer, ctx, ...(kind === "deadline" ? { timeoutMs: 300 } : {}) });
    await approvals.start();
    await using engineLog = await WireLogProxy.start(spec.url!);
    await using approvalLog = await WireLogProxy.start(approvals.url!);
    await using api = await FakeAnthropic.start([
      { toolUses: [{ name: "mcp__engine__run_check", input: { name: "lint" } }] },
      { text: "finished" },
    ]);
    const cognition = hermeticClaude(h, api, {
      mcpConfig: [
        configFor(h, "engine", engineLog.url, { ...spec.authHeaders }),
        configFor(h, APPROVAL_SERVER_NAME, approvalLog.url, { ...approvals.authHeaders }),
      ],
      strictMcpConfig: true,
      permissionPromptTool: approvals.toolName,
      builtinTools: false,
    });
    const result = await new Agent({ name: "dev", cognition }).run("check lint", ctx);
    expect(result.error).toBeUndefined();
    expect(asked).toBe(1);
    expect(seen).toEqual(expected);
    expect(approvals.decisions).toMatchObject([
      {
        tool: "mcp__engine__run_check",
        arguments: { name: "lint" },
        allowed,
        source: kind === "deadline" ? "timeout" : "asker",
        asked: true,
      },
    ]);
    expect2026(approvalLog);
    expect(approvalLog.log.find((l) => l.method === "tools/call")!.params).toMatchObject({
      name: "approve",
      arguments: { tool_name: "mcp__engine__run_check", input: { name: "lint" } },
    });
    if (allowed) expect2026(engineLog);
    else expect(engineLog.methods()).not.toContain("tools/call");
  });
});
