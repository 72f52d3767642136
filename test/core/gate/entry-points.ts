/**
 * @module test/core/gate/entry-points
 * The four gate entry points, each driven the way its real caller drives it,
 * reduced to one comparable outcome: `ReActCognition` (FakeLLM calling a
 * `deploy` tool), `ApprovalServer` (a real MCP client calling `approve` over
 * loopback HTTP), `approvalGuard` on `serveRegistry` (a real MCP client
 * calling a `requiresApproval` tool) and the Claude hook endpoint (a real
 * HTTP POST of a `PreToolUse` document).
 */
import "reflect-metadata";
import { request as httpRequest } from "node:http";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { Agent, ReActCognition, tool, type Asker, type Autonomy, type RunEvent } from "../../../src/index.js";
import { FakeLLM, Turn, makeTestCtx } from "../../../src/testing/index.js";
import { MCPClient, StreamableHttpServer } from "../../../src/mcp/client/index.js";
import { serveRegistry } from "../../../src/mcp/serve/index.js";
import { ApprovalServer, approvalGuard, type AutoAllowWhen } from "../../../src/mcp/approvals/index.js";
import { HookServer, type HookServerOptions } from "../../../src/cli/index.js";
import { until } from "../../helpers/wait.js";

/** The entry points, by the name each one gives itself as `via`. */
export const ENTRY_POINTS = ["react", "approval_server", "mcp_guard", "claude_hook"] as const;
export type EntryPoint = (typeof ENTRY_POINTS)[number];

/** The arguments every case asks about. */
export const ARGS: Readonly<Record<string, unknown>> = Object.freeze({ target: "prod" });

/** What a case hands each entry point. `cancel` aborts the asking side (the run, the client's request). */
export interface GateSetup {
  readonly asker: (cancel: () => void) => Asker;
  readonly timeoutMs?: number;
  /** ApprovalServer only. */
  readonly autoAllow?: readonly string[];
  /** ApprovalServer only. */
  readonly autoAllowWhen?: AutoAllowWhen;
  /** ApprovalServer's tier, and ReAct's run tier. */
  readonly autonomy?: Autonomy;
  /** ReAct and the guard: the tool's declaration (the guard asks only for such tools). */
  readonly requiresApproval?: boolean;
  /** The hook only: its own policy instead of the Asker. */
  readonly decide?: HookServerOptions["decide"];
  /** Every entry point: the JSONL audit file its recorder writes (`/dev/full`: every append fails). */
  readonly auditPath?: string;
}

/** One call through one entry point, reduced. */
export interface GateOutcome {
  /** Did the tool body run (ReAct, guard) / would the CLI run it (server, hook)? */
  readonly allowed: boolean;
  /** The arguments it ran with (or would run with), when allowed. */
  readonly ranWith?: Readonly<Record<string, unknown>>;
  /** What the asking side read: a tool result, a deny message, a hook reason. */
  readonly message: string;
  /** The entry point's own record of the decision (source, asked, actor, reason). */
  readonly record: Readonly<Record<string, unknown>> | undefined;
  /** Every `gate.check` emitted on the context. */
  readonly checks: readonly RunEvent["data"][];
  /** How many times the Asker was invoked. */
  readonly askerCalls: number;
  /** The `questionId` the Asker was handed each time (`AskOptions`); `"(none)"` when it got no options. */
  readonly questionIds: readonly string[];
  /** Whether each ask got an `AbortSignal`. */
  readonly signals: readonly boolean[];
  /** The hook only: its `seen` entry. */
  readonly seen?: Readonly<Record<string, unknown>>;
}

const TARGET = { type: "object", properties: { target: {} }, required: ["target"], additionalProperties: true } as const;

function counted(
  make: GateSetup["asker"],
  cancel: () => void,
): { asker: Asker; calls: () => number; seen: Pick<GateOutcome, "questionIds" | "signals"> } {
  const inner = make(cancel);
  const questionIds: string[] = [];
  const signals: boolean[] = [];
  return {
    asker: {
      ask: (r, options) => {
        questionIds.push(options?.questionId ?? "(none)");
        signals.push(options?.signal instanceof AbortSignal);
        return inner.ask(r, options);
      },
    },
    calls: () => questionIds.length,
    seen: { questionIds, signals },
  };
}

const audit = (setup: GateSetup) => (setup.auditPath ? { auditPath: setup.auditPath } : {});

function deployTool(requiresApproval: boolean, ran: Array<Record<string, unknown>>) {
  return tool(
    { name: "deploy", description: "Deploy.", input: TARGET, sideEffecting: true, requiresApproval },
    function deploy(input: Record<string, unknown>) {
      ran.push(structuredClone(input));
      return `deployed ${JSON.stringify(input)}`;
    },
  );
}

async function viaReact(setup: GateSetup): Promise<GateOutcome> {
  const ran: Array<Record<string, unknown>> = [];
  const llm = FakeLLM.script([
    new Turn({ toolCalls: [{ id: "c1", name: "deploy", arguments: { ...ARGS } }] }),
    new Turn({ content: "done" }),
  ]);
  let cancel = (): void => {};
  const { asker, calls, seen } = counted(setup.asker, () => cancel());
  const ctx = makeTestCtx({ llm, asker, autonomy: setup.autonomy ?? "gated" });
  cancel = () => ctx.cancel();
  const cognition = new ReActCognition({
    tools: [deployTool(setup.requiresApproval ?? false, ran)],
    ...(setup.timeoutMs ? { approvalTimeoutMs: setup.timeoutMs } : {}),
    ...audit(setup),
  });
  const result = await new Agent({ name: "dev", cognition }).run("deploy it", ctx);
  const checks = ctx.eventsNamed("gate.check").map((e) => e.data);
  const call = result.toolCalls[0];
  return {
    allowed: ran.length > 0,
    ...(ran.length ? { ranWith: ran[0] } : {}),
    message: call?.result ?? "",
    record: cognition.decisions[0] as unknown as Record<string, unknown>,
    checks,
    askerCalls: calls(),
    ...seen,
  };
}

async function viaApprovalServer(setup: GateSetup): Promise<GateOutcome> {
  const ctx = makeTestCtx();
  const controller = new AbortController();
  const { asker, calls, seen } = counted(setup.asker, () => controller.abort());
  await using server = await ApprovalServer.start({
    asker,
    ctx,
    ...audit(setup),
    ...(setup.timeoutMs ? { timeoutMs: setup.timeoutMs } : {}),
    ...(setup.autoAllow ? { autoAllow: setup.autoAllow } : {}),
    ...(setup.autoAllowWhen ? { autoAllowWhen: setup.autoAllowWhen } : {}),
    ...(setup.autonomy ? { autonomy: setup.autonomy } : {}),
  });
  await using client = await MCPClient.start(new StreamableHttpServer({ url: server.url, headers: { ...server.authHeaders } }));
  let text = "";
  try {
    const r = await client.callTool(
      "approve",
      { tool_name: "deploy", input: { ...ARGS }, tool_use_id: "c1" },
      { signal: controller.signal },
    );
    text = (r.content[0] as { text: string }).text;
  } catch {
    await until(() => server.decisions.length > 0, "the approval server's decision", 5000);
  }
  const answer = text
    ? (JSON.parse(text) as { behavior: string; updatedInput?: Record<string, unknown>; message?: string })
    : { behavior: "cancelled" };
  const allowed = answer.behavior === "allow";
  return {
    allowed,
    ...(allowed ? { ranWith: answer.updatedInput } : {}),
    message: answer.message ?? "",
    record: server.decisions[0] as unknown as Record<string, unknown>,
    checks: ctx.eventsNamed("gate.check").map((e) => e.data),
    askerCalls: calls(),
    ...seen,
  };
}

async function viaGuard(setup: GateSetup): Promise<GateOutcome> {
  const ctx = makeTestCtx();
  const ran: Array<Record<string, unknown>> = [];
  const controller = new AbortController();
  const { asker, calls, seen } = counted(setup.asker, () => controller.abort());
  const guard = approvalGuard({ asker, ...(setup.timeoutMs ? { timeoutMs: setup.timeoutMs } : {}), ...audit(setup) });
  await using spec = await serveRegistry([deployTool(setup.requiresApproval ?? true, ran)], { name: "engine", ctx, guard });
  await spec.start();
  await using client = await MCPClient.start(new StreamableHttpServer({ url: spec.url!, headers: { ...spec.authHeaders } }));
  let message = "";
  try {
    const r: CallToolResult = await client.callTool("deploy", { ...ARGS }, { signal: controller.signal });
    message = (r.content[0] as { text: string }).text;
  } catch {
    await until(() => guard.decisions.length > 0, "the guard's decision", 5000);
  }
  return {
    allowed: ran.length > 0,
    ...(ran.length ? { ranWith: ran[0] } : {}),
    message,
    record: guard.decisions[0] as unknown as Record<string, unknown>,
    checks: ctx.eventsNamed("gate.check").map((e) => e.data),
    askerCalls: calls(),
    ...seen,
  };
}

/** POST `body` to `url` with `headers`; resolves to the status and text. */
export function post(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: "POST", headers: { "content-type": "application/json", ...headers } }, (res) => {
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function viaHook(setup: GateSetup): Promise<GateOutcome> {
  const ctx = makeTestCtx();
  const { asker, calls, seen } = counted(setup.asker, () => ctx.cancel());
  await using hooks = await HookServer.start({
    ctx,
    ...(setup.decide ? { decide: setup.decide } : { asker }),
    ...(setup.timeoutMs ? { timeoutMs: setup.timeoutMs } : {}),
    ...audit(setup),
  });
  const doc = { hook_event_name: "PreToolUse", session_id: "s1", tool_name: "deploy", tool_input: { ...ARGS }, tool_use_id: "c1" };
  const res = await post(hooks.url, { ...hooks.authHeaders }, JSON.stringify(doc));
  const out = (
    JSON.parse(res.text) as {
      hookSpecificOutput?: { permissionDecision: string; permissionDecisionReason?: string; updatedInput?: Record<string, unknown> };
    }
  ).hookSpecificOutput;
  const allowed = out?.permissionDecision === "allow";
  return {
    allowed,
    ...(allowed ? { ranWith: out?.updatedInput ?? { ...ARGS } } : {}),
    message: out?.permissionDecisionReason ?? "",
    // The engine's record (the recorder's list); the hook's own trail (`seen`) is a view of it.
    record: hooks.decisions[0] as unknown as Record<string, unknown>,
    seen: hooks.seen[0] as unknown as Record<string, unknown>,
    checks: ctx.eventsNamed("gate.check").map((e) => e.data),
    askerCalls: calls(),
    ...seen,
  };
}

/** Run one call through `entry` with `setup`. */
export function runThrough(entry: EntryPoint, setup: GateSetup): Promise<GateOutcome> {
  switch (entry) {
    case "react":
      return viaReact(setup);
    case "approval_server":
      return viaApprovalServer(setup);
    case "mcp_guard":
      return viaGuard(setup);
    default:
      return viaHook(setup);
  }
}
