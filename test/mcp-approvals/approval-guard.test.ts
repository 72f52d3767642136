/**
 * @module test/mcp-approvals/approval-guard.test
 * approvalGuard on a real served registry (serveRegistry over loopback),
 * driven by the project's MCPClient and the SDK Client: requiresApproval
 * tools ask the Asker first (same table, sources, deadline and JSONL audit as
 * ApprovalServer); a denial is an isError result naming who refused and why,
 * and the tool body never runs; other tools pass unasked.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import { tool } from "../../src/tools/function-tool.js";
import type { Decision } from "../../src/contracts/elicitation.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { MCPClient, StreamableHttpServer } from "../../src/mcp/client/index.js";
import { serveRegistry, type ToolGuard } from "../../src/mcp/serve/index.js";
import { approvalGuard, type ApprovalGuardOptions } from "../../src/mcp/approvals/index.js";
import type { GateRecord } from "../../src/index.js";
import { askerAnswering } from "../helpers/asker.js";

const ran: string[] = [];
const deploy = tool(
  {
    description: "Deploy the current build to the named target environment.",
    requiresApproval: true,
    input: { type: "object", properties: { target: { type: "string" } }, required: ["target"], additionalProperties: false },
  },
  function deploy({ target }: { target: string }) {
    ran.push(target);
    return `deployed to ${target}`;
  },
);
const status = tool(
  { description: "Report the build status.", sideEffecting: false, input: { type: "object", properties: {}, additionalProperties: false } },
  function status() {
    return "green";
  },
);

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  ran.length = 0;
});

const text = (r: CallToolResult): string => (r.content[0] as { text: string }).text;

/** Serve deploy + status behind an approvalGuard; call through the chosen client. */
async function guarded(via: "MCPClient" | "SDK Client", options: ApprovalGuardOptions) {
  const ctx = makeTestCtx();
  const guard = approvalGuard(options);
  const typed: ToolGuard = guard; // the guard is serveRegistry's ToolGuard
  const spec = await serveRegistry([deploy, status], { name: "engine", ctx, guard: typed });
  cleanups.push(() => spec.stop());
  await spec.start();
  let call: (name: string, args: Record<string, unknown>) => Promise<CallToolResult>;
  if (via === "MCPClient") {
    const client = await MCPClient.start(new StreamableHttpServer({ url: spec.url!, headers: { ...spec.authHeaders } }));
    cleanups.push(() => client.stop());
    call = (name, args) => client.callTool(name, args);
  } else {
    const client = new Client({ name: "agentkit-guard-test", version: "0.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(spec.url!), {
        requestInit: { headers: { ...spec.authHeaders } },
        fetch: (u, init) => fetch(u, init?.signal ? { ...init, signal: AbortSignal.any([init.signal]) } : init),
      }),
    );
    cleanups.push(() => client.close());
    call = async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  }
  return { ctx, guard, call };
}

describe.each(["MCPClient", "SDK Client"] as const)("approvalGuard on serveRegistry via %s", (via) => {
  it("asks before a requiresApproval tool: approve runs it, reject refuses naming who and why, and the body never runs", async () => {
    const asker = askerAnswering((r) =>
      r.toolCall!.arguments.target === "prod" ? { kind: "reject", actor: "ops", note: "not today" } : { kind: "approve", actor: "ops" },
    );
    const { call, guard, ctx } = await guarded(via, { asker });
    const refused = await call("deploy", { target: "prod" });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe("tool 'deploy' was not run: rejected by ops: not today");
    const ok = await call("deploy", { target: "staging" });
    expect(ok.isError).toBeFalsy();
    expect(text(ok)).toBe("deployed to staging");
    expect(ran).toEqual(["staging"]);
    expect(asker.seen.map((r) => [r.source, r.toolCall!.name])).toEqual([
      ["mcp_guard", "mcp__engine__deploy"],
      ["mcp_guard", "mcp__engine__deploy"],
    ]);
    expect(guard.decisions.map((d) => [d.tool, d.allowed, d.source, d.actor, d.reason])).toEqual([
      ["mcp__engine__deploy", false, "asker", "ops", "not today"],
      ["mcp__engine__deploy", true, "asker", "ops", "approved by ops"],
    ]);
    const checks = ctx.eventsNamed("gate.check");
    expect(checks.map((e) => e.data.allowed)).toEqual([false, true]);
    for (const e of checks) expect(e.data).not.toHaveProperty("arguments");
  });

  it("tools without requiresApproval pass unasked and unrecorded", async () => {
    const asker = askerAnswering(() => ({ kind: "reject" }));
    const { call, guard } = await guarded(via, { asker });
    expect(text(await call("status", {}))).toBe("green");
    expect(asker.seen).toHaveLength(0);
    expect(guard.decisions).toHaveLength(0);
  });

  it("modify runs the tool with the edited arguments", async () => {
    const { call, guard } = await guarded(via, {
      asker: askerAnswering(() => ({ kind: "modify", actor: "ops", value: { target: "canary" } })),
    });
    expect(text(await call("deploy", { target: "prod" }))).toBe("deployed to canary");
    expect(ran).toEqual(["canary"]);
    expect(guard.decisions[0]).toMatchObject({ arguments: { target: "prod" }, updatedArguments: { target: "canary" }, source: "asker" });
  });

  it("the guard's deadline, an expired answer and a throwing Asker are refusals with their sources", async () => {
    const never = askerAnswering(() => new Promise<Decision>(() => {}));
    const t = await guarded(via, { asker: never, timeoutMs: 100 });
    expect(text(await t.call("deploy", { target: "prod" }))).toBe(
      "tool 'deploy' was not run: approval for 'mcp__engine__deploy' timed out: nobody answered within 0.1s; denied (a timeout, not a refusal)",
    );
    expect(t.guard.decisions[0]).toMatchObject({ source: "timeout", asked: true });

    const e = await guarded(via, { asker: askerAnswering(() => ({ kind: "expired", actor: "pager" })), timeoutMs: 60_000 });
    expect(text(await e.call("deploy", { target: "prod" }))).toBe(
      "tool 'deploy' was not run: approval for 'mcp__engine__deploy' expired: nobody answered before the 60s deadline",
    );
    expect(e.guard.decisions[0]).toMatchObject({ source: "asker", asked: true, actor: "pager" });

    const x = await guarded(via, { asker: askerAnswering(() => Promise.reject(new Error("pager offline"))) });
    expect(text(await x.call("deploy", { target: "prod" }))).toBe(
      "tool 'deploy' was not run: approval for 'mcp__engine__deploy' failed: the Asker threw Error: pager offline; denied (not a policy decision)",
    );
    expect(x.guard.decisions[0]).toMatchObject({ source: "error", asked: true });
    expect(ran).toEqual([]);
  });
});

describe("approvalGuard audit on a served registry", () => {
  it("writes each decision to the JSONL file before the call runs or is refused, into a shared decisions array", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentkit-approvals-guard-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, "audit.jsonl");
    const shared: GateRecord[] = [];
    let linesWhenRun = -1;
    const counting = tool(
      {
        description: "Count audit lines when run.",
        requiresApproval: true,
        input: { type: "object", properties: {}, additionalProperties: false },
      },
      function counting() {
        linesWhenRun = readFileSync(path, "utf8").split("\n").filter(Boolean).length;
        return "ok";
      },
    );
    const spec = await serveRegistry([counting], {
      name: "engine",
      ctx: makeTestCtx(),
      guard: approvalGuard({ asker: askerAnswering(() => ({ kind: "approve" })), auditPath: path, decisions: shared }),
    });
    cleanups.push(() => spec.stop());
    await spec.start();
    const client = await MCPClient.start(new StreamableHttpServer({ url: spec.url!, headers: { ...spec.authHeaders } }));
    cleanups.push(() => client.stop());
    expect(text(await client.callTool("counting", {}))).toBe("ok");
    expect(linesWhenRun).toBe(1);
    expect(shared).toHaveLength(1);
    expect(
      readFileSync(path, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual(JSON.parse(JSON.stringify(shared)));
  });
});
