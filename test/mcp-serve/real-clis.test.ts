/**
 * @module test/mcp-serve/real-clis.test
 * The protocol the real CLIs speak, observed at our listener: Claude Code
 * 2.1.332 opens with `server/discover` (a sessionless POST that is not
 * initialize, protocol 2026-07-28), gets the SDK's answer (400, a JSON-RPC
 * error naming the supported versions), falls back to `initialize`, opens the
 * GET stream of its session and calls the tool; Codex 0.171 sends
 * `initialize` 2025-06-18. Both run hermetically (fake model APIs from the CLI
 * test kit, temporary HOME, clean env).
 */
import type { IncomingMessage, Server as HttpServer } from "node:http";
import { describe, expect, it } from "vitest";
import { Agent, tool } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { serveRegistry, type McpServerSpec } from "../../src/mcp/serve/index.js";
import { hermeticClaude, hermeticCodex } from "../cli/kit/cognitions.js";
import { FakeAnthropic } from "../cli/kit/fake-anthropic.js";
import { FakeOpenAI } from "../cli/kit/fake-openai.js";
import { Hermetic } from "../cli/kit/hermetic.js";

interface Seen {
  method: string;
  rpc: string | null;
  session: boolean;
  protocolHeader: string | null;
  status: number;
  clientVersion?: string;
}

const runCheck = tool(
  {
    description: "Run the named check and report whether it passed.",
    sideEffecting: false,
    input: { type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false },
  },
  function runCheck({ name }: { name: string }) {
    return `check ${name}: PASSED`;
  },
);

/** Record every request the listener answers (method, JSON-RPC method, status). Reads the private http server: test-only. */
function record(spec: McpServerSpec): Seen[] {
  const seen: Seen[] = [];
  const http = (spec as unknown as { listener: { lease: { listener: { http: HttpServer } } } }).listener.lease.listener.http;
  http.prependListener("request", (req: IncomingMessage, res) => {
    const entry: Seen = {
      method: req.method ?? "",
      rpc: null,
      session: req.headers["mcp-session-id"] !== undefined,
      protocolHeader: (req.headers["mcp-protocol-version"] as string | undefined) ?? null,
      status: 0,
    };
    seen.push(entry);
    req.on("data", (b: Buffer) => {
      try {
        const m = JSON.parse(b.toString()) as { method?: string; params?: { protocolVersion?: string } };
        entry.rpc = m.method ?? "(response)";
        if (m.params?.protocolVersion) entry.clientVersion = m.params.protocolVersion;
      } catch {
        entry.rpc = "(partial)";
      }
    });
    res.on("finish", () => (entry.status = res.statusCode));
  });
  return seen;
}

describe("real CLIs against a served registry", () => {
  it("Claude Code 2.1.332: server/discover first, answered on 2026-07-28; no initialize, no session, and the call on 2026-07-28", async () => {
    await using h = Hermetic.create();
    const ctx = makeTestCtx();
    await using spec = await serveRegistry([runCheck], { name: "engine", ctx });
    await spec.start();
    const seen = record(spec);
    await using api = await FakeAnthropic.start([
      { toolUses: [{ name: "mcp__engine__run_check", input: { name: "lint" } }] },
      { text: "lint passed" },
    ]);
    const cognition = hermeticClaude(h, api, { allowedTools: spec.autoApprove, ...spec.cliOptions({ builtinTools: false }) });
    const result = await new Agent({ name: "dev", cognition }).run("check lint", ctx);
    expect(result.error).toBeUndefined();
    expect(result.output).toBe("lint passed");
    expect(spec.callsSeen).toBe(1);
    expect(api.toolResults()).toMatchObject([{ type: "tool_result", content: [{ type: "text", text: "check lint: PASSED" }] }]);

    const first = seen[0]!;
    // The 2026-07-28 probe is answered (the SDK v2's modern handler): the CLI stays on that era, statelessly.
    expect(first).toMatchObject({ method: "POST", rpc: "server/discover", session: false, protocolHeader: "2026-07-28", status: 200 });
    expect(seen.some((s) => s.rpc === "initialize")).toBe(false);
    expect(seen.filter((s) => s.method === "POST").every((s) => !s.session && s.protocolHeader === "2026-07-28")).toBe(true);
    expect(seen.filter((s) => s.rpc === "tools/call")).toHaveLength(1);
  });

  it("Claude Code sees a served prompt and resource: it lists both, and its init event reports what the pinned binary derives from them", async () => {
    await using h = Hermetic.create();
    const ctx = makeTestCtx();
    await using spec = await serveRegistry([runCheck], {
      name: "engine",
      ctx,
      resources: [{ uri: "checks://lint/report", name: "lint_report", description: "The lint report.", read: () => "lint: 0 problems" }],
      prompts: [
        {
          name: "triage",
          description: "Triage a failing check.",
          arguments: [{ name: "check", required: true }],
          render: ({ check }) => `Triage ${check}.`,
        },
      ],
    });
    await spec.start();
    const seen = record(spec);
    const inits: Array<Record<string, unknown>> = [];
    ctx.on((e) => {
      if (e.event === "cli.init") inits.push(e.data as Record<string, unknown>);
    });
    await using api = await FakeAnthropic.start([{ text: "nothing to do" }]);
    const cognition = hermeticClaude(h, api, { allowedTools: spec.autoApprove, ...spec.cliOptions({ builtinTools: false }) });
    const result = await new Agent({ name: "dev", cognition }).run("hello", ctx);
    expect(result.error).toBeUndefined();
    expect(inits).toHaveLength(1);
    expect(inits[0]!.mcpServers).toEqual([{ name: "engine", status: "connected" }]);
    const rpcs = seen.filter((s) => s.status === 200).map((s) => s.rpc);
    expect(rpcs).toContain("prompts/list");
    expect(rpcs).toContain("resources/list");
    // What 2.1.332 reports with builtinTools: false: the served tools only (run_check, and read_result, which a module
    // serves with its result budget, on by default); its resource tools (ListMcpResourcesTool, ReadMcpResourceTool) are
    // built-ins, switched off with the rest.
    expect([...(inits[0]!.tools as string[])].sort()).toEqual(["mcp__engine__read_result", "mcp__engine__run_check"]);
  });

  it("Codex 0.171: initialize 2025-06-18, then tools/list and the call, all in one session", async () => {
    await using h = Hermetic.create();
    const ctx = makeTestCtx();
    await using spec = await serveRegistry([runCheck], { name: "engine", ctx });
    await spec.start();
    const seen = record(spec);
    await using api = await FakeOpenAI.start([
      { functionCalls: [{ namespace: "mcp__engine", name: "run_check", arguments: { name: "lint" } }] },
      { text: "lint passed" },
    ]);
    const cognition = hermeticCodex(h, api, spec.codexOptions());
    const result = await new Agent({ name: "dev", cognition }).run("check lint", ctx);
    expect(result.error).toBeUndefined();
    expect(spec.callsSeen).toBe(1);
    const init = seen.find((s) => s.rpc === "initialize");
    expect(init).toMatchObject({ method: "POST", session: false, status: 200, clientVersion: "2025-06-18" });
    expect(seen.filter((s) => s.rpc === "tools/list" || s.rpc === "tools/call").every((s) => s.session && s.status === 200)).toBe(true);
  });
});
