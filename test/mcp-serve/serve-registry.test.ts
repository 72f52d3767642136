/**
 * @module test/mcp-serve/serve-registry.test
 * serveRegistry over a real loopback socket: what is advertised (names,
 * schema bytes, annotations, _meta), the error contract, deadlines,
 * cancellation, the guard, and the declarations on the spec.
 */
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AgentkitError, Cancelled, ClientGaveUp, RunContext, ToolRegistry, tool, type Tool } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { META_KEY, serveRegistry, serveRegistryStdio, type ToolGuard } from "../../src/mcp/serve/index.js";
import { OptionsError } from "../../src/index.js";
import { INITIALIZE, rawPost, rpcMessages, sdkClientFor, ServedSpecs } from "./helpers.js";

const specs = new ServedSpecs();
const { served } = specs;
afterEach(() => specs.stopAll());

const runCheck = tool(
  {
    description: "Run the named check and report whether it passed.",
    sideEffecting: false,
    input: {
      type: "object",
      properties: { name: { type: "string" }, strict: { type: "boolean", default: false } },
      required: ["name"],
      additionalProperties: false,
    },
  },
  function runCheck({ name, strict }: { name: string; strict?: boolean }) {
    return `${name}:${strict ? "strict" : "lax"}:ok`;
  },
);
const deploy = tool(
  {
    description: "Deploy the current build to the named target environment.",
    sideEffecting: true,
    requiresApproval: true,
    caps: ["egress"],
    input: { type: "object", properties: { target: { type: "string" } }, required: ["target"], additionalProperties: false },
  },
  function deploy({ target }: { target: string }) {
    return `deployed to ${target}`;
  },
);
const NO_ARGS = { type: "object", properties: {}, additionalProperties: false };

class RuntimeError extends Error {}
class TimeoutError extends Error {}

describe("serveRegistry: the seed's main example", () => {
  it("declares, advertises, runs, refuses a bad call and survives it", async () => {
    const spec = await serveRegistry(ToolRegistry.fromTools([runCheck, deploy]), { name: "engine", ctx: makeTestCtx() });
    specs.track(spec);
    // Result budgets are on by default: the module's read_result (read-only, needs no approval) is served beside its tools.
    expect(spec.toolNames).toEqual(["mcp__engine__deploy", "mcp__engine__read_result", "mcp__engine__run_check"]);
    expect(spec.requiresApproval).toEqual(["mcp__engine__deploy"]);
    expect(spec.autoApprove).toEqual(["mcp__engine__read_result", "mcp__engine__run_check"]);
    expect(spec.caps).toEqual(["egress"]);
    expect(Object.keys(spec.cliOptions()).sort()).toEqual(["mcpConfig", "strictMcpConfig"]);
    expect(spec.mcpNames).toEqual({
      run_check: "mcp__engine__run_check",
      deploy: "mcp__engine__deploy",
      read_result: "mcp__engine__read_result",
    });
    await spec.start();
    await using client = await sdkClientFor(spec.url!, { ...spec.authHeaders });
    const listed = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
    expect([...listed.keys()].sort()).toEqual(["deploy", "read_result", "run_check"]);
    expect(JSON.stringify(listed.get("run_check")!.inputSchema)).toBe(JSON.stringify(runCheck.schema.parameters));
    expect(listed.get("deploy")!._meta![META_KEY]).toEqual({ side_effecting: true, requires_approval: true, caps: ["egress"] });
    expect(listed.get("deploy")!.annotations).toEqual({ readOnlyHint: false, destructiveHint: true });
    expect(listed.get("run_check")!.annotations).toEqual({ readOnlyHint: true, destructiveHint: false });
    const ok = await client.callTool({ name: "run_check", arguments: { name: "lint" } });
    expect(ok).toEqual({ content: [{ type: "text", text: "lint:lax:ok" }] });
    const bad = await client.callTool({ name: "run_check", arguments: { name: "lint", verbose: true } });
    expect(bad.isError).toBe(true);
    expect(bad.content).toEqual([
      { type: "text", text: "tool 'run_check' call rejected: unexpected argument(s) ['verbose']. Accepted arguments: ['name', 'strict']" },
    ]);
    const after = await client.callTool({ name: "run_check", arguments: { name: "after" } });
    expect(after.content).toEqual([{ type: "text", text: "after:lax:ok" }]);
    expect(spec.callsSeen).toBe(3);
  });

  it("sends inputSchema byte for byte (raw SSE bytes, key order included)", async () => {
    const odd = tool(
      {
        name: "odd_order",
        description: "Keys in an unusual order.",
        // `required` before `type`, nested keys reversed, a default and a $comment: nothing may be re-serialised.
        input: {
          required: ["z"],
          properties: { z: { type: "string", description: "last first" }, a: { default: 3, type: "integer" } },
          type: "object",
          $comment: "kept",
        },
      },
      () => "ok",
    );
    const spec = await served([odd], { name: "engine", ctx: makeTestCtx() });
    const init = await rawPost(spec.url!, INITIALIZE, { ...spec.authHeaders });
    const sid = init.headers.get("mcp-session-id")!;
    await init.text();
    const res = await rawPost(
      spec.url!,
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { ...spec.authHeaders, "Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25" },
    );
    const raw = await res.text();
    expect(raw).toContain(`"inputSchema":${JSON.stringify(odd.schema.parameters)}`);
    expect(JSON.stringify(odd.schema.parameters)).toBe(
      '{"required":["z"],"properties":{"z":{"type":"string","description":"last first"},"a":{"default":3,"type":"integer"}},"type":"object","$comment":"kept"}',
    );
  });
});

describe("serveRegistry: the error contract", () => {
  const fire = tool({ description: "Fails.", input: NO_ARGS }, function onFire() {
    throw new RuntimeError("the database is on fire");
  });
  const nonError = tool({ description: "Throws a string.", input: NO_ARGS }, function throwsString() {
    throw "just a string";
  });

  it("reports failures, unknown tools and cancellations as isError results; the session survives each", async () => {
    const ctx = makeTestCtx();
    const spec = await served([runCheck, deploy, fire, nonError], { name: "engine", ctx });
    await using client = await sdkClientFor(spec.url!, { ...spec.authHeaders });
    const text = async (name: string, args: Record<string, unknown> = {}): Promise<[boolean | undefined, string]> => {
      const r = await client.callTool({ name, arguments: args });
      return [r.isError as boolean | undefined, (r.content as Array<{ text: string }>)[0]!.text];
    };
    expect(await text("on_fire")).toEqual([true, "tool 'on_fire' failed: RuntimeError: the database is on fire"]);
    expect(await text("throws_string")).toEqual([true, "tool 'throws_string' failed: non-Error value thrown: string \"just a string\""]);
    expect(await text("nope")).toEqual([
      true,
      "unknown tool 'nope'. Available tools: ['deploy', 'on_fire', 'read_result', 'run_check', 'throws_string']",
    ]);
    expect(await text("run_check", { name: "x" })).toEqual([undefined, "x:lax:ok"]);
    ctx.cancel();
    expect(await text("run_check", { name: "x" })).toEqual([true, "the run was cancelled; 'run_check' was not run"]);
    expect(spec.callsSeen).toBe(5);
  });

  it("reports a run cancelled mid-call, at once, and the tool sees its context cancelled", async () => {
    const ctx = makeTestCtx();
    let sawAbort = false;
    let entered!: () => void;
    const started = new Promise<void>((r) => (entered = r));
    const waits = tool(
      { description: "Waits for cancellation.", sideEffecting: false, input: NO_ARGS },
      function waitsForever(_i, c: RunContext) {
        entered();
        return new Promise((_resolve, reject) =>
          c.signal.addEventListener("abort", () => {
            sawAbort = true;
            reject(new Cancelled());
          }),
        );
      },
    );
    const spec = await served([waits], { name: "engine", ctx });
    await using client = await sdkClientFor(spec.url!, { ...spec.authHeaders });
    const call = client.callTool({ name: "waits_forever", arguments: {} });
    await started;
    ctx.cancel();
    const r = await call;
    expect(r).toEqual({ content: [{ type: "text", text: "the run was cancelled while 'waits_forever' was running" }], isError: true });
    expect(sawAbort).toBe(true);
  });

  it("a client that cancels its request mid-call cancels that call's context only; the run and the session go on", async () => {
    const ctx = makeTestCtx();
    const reasons: unknown[] = [];
    let started = 0;
    const waits = tool(
      { description: "Waits for cancellation.", sideEffecting: false, input: NO_ARGS },
      function waitsForever(_i, c: RunContext) {
        return new Promise((_resolve, reject) => {
          c.signal.addEventListener("abort", () => {
            reasons.push(c.signal.reason);
            reject(c.signal.reason);
          });
          started++;
        });
      },
    );
    const spec = await served([waits, runCheck], { name: "engine", ctx });
    await using client = await sdkClientFor(spec.url!, { ...spec.authHeaders });
    const first = new AbortController();
    const cancelled = client
      .callTool({ name: "waits_forever", arguments: {} }, undefined, { signal: first.signal })
      .catch((e: unknown) => e);
    const other = new AbortController();
    const stillRunning = client
      .callTool({ name: "waits_forever", arguments: {} }, undefined, { signal: other.signal })
      .catch((e: unknown) => e);
    await vi.waitFor(() => expect(started).toBe(2), { timeout: 10_000 });
    first.abort("user pressed stop");
    await cancelled;
    await vi.waitFor(() => expect(reasons).toHaveLength(1), { timeout: 10_000 });
    expect(reasons[0]).toBeInstanceOf(Cancelled);
    expect(reasons[0]).toBeInstanceOf(ClientGaveUp);
    expect((reasons[0] as Cancelled).message).toBe("agentkit-test stopped waiting: it cancelled the call: user pressed stop");
    expect(ctx.cancelled).toBe(false);
    // The other call in the same session is untouched, and the session serves new calls.
    expect((await client.callTool({ name: "run_check", arguments: { name: "after" } })).content).toEqual([
      { type: "text", text: "after:lax:ok" },
    ]);
    expect(reasons).toHaveLength(1);
    other.abort();
    await stillRunning;
    await vi.waitFor(() => expect(reasons).toHaveLength(2), { timeout: 10_000 });
    expect((reasons[1] as Cancelled).message).toMatch(/ stopped waiting: it cancelled the call/);
  });

  it("a session ended (DELETE) while a call runs cancels that call's context", async () => {
    let inFlight: RunContext | undefined;
    const waits = tool({ description: "Waits.", sideEffecting: false, input: NO_ARGS }, function waitsForever(_i, c: RunContext) {
      inFlight = c;
      return new Promise(() => {});
    });
    const ctx = makeTestCtx();
    const spec = await served([waits], { name: "engine", ctx });
    const client = await sdkClientFor(spec.url!, { ...spec.authHeaders });
    const pending = client.callTool({ name: "waits_forever", arguments: {} }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(inFlight).toBeDefined(), { timeout: 10_000 });
    expect(inFlight!.cancelled).toBe(false);
    await (client.transport as StreamableHTTPClientTransport).terminateSession();
    await vi.waitFor(() => expect(inFlight!.cancelled).toBe(true), { timeout: 10_000 });
    expect(() => inFlight!.checkCancelled()).toThrow(/ stopped waiting: its connection closed while the call was running$/);
    expect(ctx.cancelled).toBe(false);
    await client.close();
    await pending;
  });

  it("keeps Cancelled raised by a tool apart from an ordinary failure", async () => {
    const quits = tool({ description: "Raises Cancelled.", input: NO_ARGS }, function quits() {
      throw new Cancelled();
    });
    const spec = await served([quits], { name: "engine", ctx: makeTestCtx() });
    await using client = await sdkClientFor(spec.url!, { ...spec.authHeaders });
    const r = await client.callTool({ name: "quits", arguments: {} });
    expect(r.content).toEqual([{ type: "text", text: "the run was cancelled while 'quits' was running" }]);
  });

  it("keeps the deadline and a tool's own TimeoutError apart", async () => {
    let abandonedSignal: AbortSignal | undefined;
    const slowBuild = tool(
      { description: "Waits far past the deadline.", sideEffecting: false, input: NO_ARGS },
      function slowBuild(_i, c: RunContext) {
        abandonedSignal = c.signal;
        return new Promise((resolve) => c.signal.addEventListener("abort", () => resolve("too late")));
      },
    );
    const callUpstream = tool(
      {
        description: "Fails like a client.",
        sideEffecting: false,
        input: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
      },
      function callUpstream() {
        throw new TimeoutError("upstream read timed out after 3s");
      },
    );
    const spec = await served([slowBuild, callUpstream], { name: "engine", ctx: makeTestCtx(), timeoutMs: 50 });
    await using client = await sdkClientFor(spec.url!, { ...spec.authHeaders });
    const ours = await client.callTool({ name: "slow_build", arguments: {} });
    const theirs = await client.callTool({ name: "call_upstream", arguments: { url: "http://x" } });
    expect((ours.content as Array<{ text: string }>)[0]!.text).toBe("tool 'slow_build' did not return within 0.05s and was abandoned");
    expect((theirs.content as Array<{ text: string }>)[0]!.text).toBe(
      "tool 'call_upstream' failed: TimeoutError: upstream read timed out after 3s",
    );
    expect(abandonedSignal?.aborted).toBe(true);
  });

  it("without timeoutMs a tool's TimeoutError is its own failure, never a deadline", async () => {
    const callUpstream = tool({ description: "Fails like a client.", input: NO_ARGS }, function callUpstream() {
      throw new TimeoutError("upstream read timed out after 3s");
    });
    const spec = await served([callUpstream], { name: "engine", ctx: makeTestCtx() });
    await using client = await sdkClientFor(spec.url!, { ...spec.authHeaders });
    const r = await client.callTool({ name: "call_upstream", arguments: {} });
    expect((r.content as Array<{ text: string }>)[0]!.text).toBe(
      "tool 'call_upstream' failed: TimeoutError: upstream read timed out after 3s",
    );
  });

  it("runs each call in ctx.child with the caller's identity and the request's signal", async () => {
    const ctx = makeTestCtx();
    let seen: RunContext | undefined;
    const who = tool({ description: "Reports its caller.", input: NO_ARGS }, function whoCalls(_i, c: RunContext) {
      seen = c;
      c.emit("who.called", { server: c.caller?.server });
      return "ok";
    });
    const spec = await served([who], { name: "engine", ctx });
    await using client = await sdkClientFor(spec.url!, { ...spec.authHeaders });
    await client.callTool({ name: "who_calls", arguments: {} });
    expect(seen).not.toBe(ctx);
    expect(seen!.runId).toBe(ctx.runId);
    expect(seen!.caller).toEqual({ kind: "loopback", server: "engine", sessionId: expect.any(String), requestId: expect.anything() });
    expect(ctx.eventsNamed("who.called")).toEqual([{ event: "who.called", data: { server: "engine" } }]);
  });
});

describe("serveRegistry: the guard", () => {
  it("is consulted after validation (a malformed call is refused, the guard not asked) and before run; a denial's message is the result; it may replace arguments", async () => {
    const requests: Array<{ name: string; qualifiedName: string; arguments: Record<string, unknown> }> = [];
    const guard: ToolGuard = async (r) => {
      requests.push({ name: r.name, qualifiedName: r.qualifiedName, arguments: r.arguments });
      if (r.tool.requiresApproval) return { allowed: false, message: "a reviewer said no" };
      if (r.arguments.name === "swap") return { allowed: true, arguments: { name: "swapped" } };
      return { allowed: true };
    };
    let deployRan = false;
    const guardedDeploy = tool(
      {
        name: "deploy",
        description: "Deploys.",
        requiresApproval: true,
        input: { type: "object", properties: { target: { type: "string" } }, additionalProperties: false },
      },
      () => {
        deployRan = true;
        return "deployed";
      },
    );
    const spec = await served([runCheck, guardedDeploy], { name: "engine", ctx: makeTestCtx(), guard });
    await using client = await sdkClientFor(spec.url!, { ...spec.authHeaders });
    expect((await client.callTool({ name: "deploy", arguments: { bogus: 1 } })).content).toEqual([
      { type: "text", text: "tool 'deploy' call rejected: unexpected argument(s) ['bogus']. Accepted arguments: ['target']" },
    ]);
    expect((await client.callTool({ name: "deploy", arguments: { target: "prod" } })).content).toEqual([
      { type: "text", text: "a reviewer said no" },
    ]);
    expect(deployRan).toBe(false);
    expect((await client.callTool({ name: "run_check", arguments: { name: "swap" } })).content).toEqual([
      { type: "text", text: "swapped:lax:ok" },
    ]);
    expect(requests).toEqual([
      { name: "deploy", qualifiedName: "mcp__engine__deploy", arguments: { target: "prod" } },
      { name: "run_check", qualifiedName: "mcp__engine__run_check", arguments: { name: "swap" } },
    ]);
  });

  it("a failing guard is a denial naming the failure; a cancelled run is not consulted", async () => {
    const ctx = makeTestCtx();
    let consulted = 0;
    const guard: ToolGuard = async () => {
      consulted++;
      throw new Error("asker unreachable");
    };
    const spec = await served([runCheck], { name: "engine", ctx, guard });
    await using client = await sdkClientFor(spec.url!, { ...spec.authHeaders });
    const r = await client.callTool({ name: "run_check", arguments: { name: "x" } });
    expect(r).toEqual({
      content: [{ type: "text", text: "tool 'run_check' was not run: its guard failed: Error: asker unreachable" }],
      isError: true,
    });
    ctx.cancel();
    await client.callTool({ name: "run_check", arguments: { name: "x" } });
    expect(consulted).toBe(1);
  });
});

describe("serveRegistry: names", () => {
  const named = (name: string, extra: Partial<Tool> = {}): Tool =>
    Object.assign(
      tool({ name, description: `The ${name} tool.`, input: NO_ARGS }, () => name),
      extra,
    );

  it("sanitises tool names to [A-Za-z0-9_-] and publishes the mapping", async () => {
    // results: false: this is about the names of the module's own tools, without the read_result budgets add.
    const spec = await served([named("run.check"), named("fetch page")], { name: "engine", ctx: makeTestCtx(), results: false });
    expect(spec.toolNames).toEqual(["mcp__engine__fetch_page", "mcp__engine__run_check"]);
    expect(spec.mcpNames).toEqual({ "run.check": "mcp__engine__run_check", "fetch page": "mcp__engine__fetch_page" });
    await using client = await sdkClientFor(spec.url!, { ...spec.authHeaders });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["run_check", "fetch_page"]);
    expect((await client.callTool({ name: "run_check", arguments: {} })).content).toEqual([{ type: "text", text: "run.check" }]);
  });

  it("refuses names that collide after sanitising", async () => {
    const err = await serveRegistry([named("run.check"), named("run check")], { name: "engine", ctx: makeTestCtx() }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AgentkitError);
    expect((err as AgentkitError).code).toBe("mcp_name");
    expect((err as Error).message).toBe(
      "tools 'run.check' and 'run check' both serve as 'run_check' once sanitised to [A-Za-z0-9_-]; rename one of them (a registry refuses duplicate names, and sanitising must not re-open that hole one layer down)",
    );
  });

  it("refuses an invalid server name rather than rewriting it", async () => {
    for (const bad of ["my.engine", "", "a b", "my__engine", "é"]) {
      await expect(serveRegistry([runCheck], { name: bad, ctx: makeTestCtx() })).rejects.toThrow(
        expect.objectContaining({ code: "mcp_name" }),
      );
    }
    await expect(serveRegistry([runCheck], { name: "my.engine", ctx: makeTestCtx() })).rejects.toThrow(
      /Server names are refused, not rewritten/,
    );
  });

  it("refuses a qualified name over 64 characters, saying why", async () => {
    const long = "t".repeat(52); // mcp__engine__ is 13 characters: 65 in all
    expect(`mcp__engine__${"t".repeat(51)}`.length).toBe(64);
    await serveRegistry([named("t".repeat(51))], { name: "engine", ctx: makeTestCtx() }).then((s) => s.stop());
    const err = await serveRegistry([named(long)], { name: "engine", ctx: makeTestCtx() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentkitError);
    expect((err as AgentkitError).code).toBe("mcp_name");
    expect((err as Error).message).toBe(
      `tool '${long}' cannot be served as 'mcp__engine__${long}': the qualified name is 65 characters and model APIs cut tool names at 64, so the model would see a truncated name that matches no tool. Shorten the tool name or the server name 'engine' (at most 51 characters remain for the tool).`,
    );
  });

  it("drops schema-less tools: not advertised, not in toolNames, unknown when called", async () => {
    const hidden: Tool = {
      ...named("hidden"),
      schema: null,
      name: "hidden",
      description: "",
      sideEffecting: false,
      requiresApproval: false,
      caps: ["private_data"],
      run: async () => "x",
    };
    // results: false: the listed tools are the module's own only (no read_result), so the dropped one is plainly absent.
    const spec = await served([runCheck, hidden], { name: "engine", ctx: makeTestCtx(), results: false });
    expect(spec.toolNames).toEqual(["mcp__engine__run_check"]);
    expect(spec.caps).toEqual([]);
    await using client = await sdkClientFor(spec.url!, { ...spec.authHeaders });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["run_check"]);
    expect((await client.callTool({ name: "hidden", arguments: {} })).content).toEqual([
      { type: "text", text: "unknown tool 'hidden'. Available tools: ['run_check']" },
    ]);
  });

  it("a read-only tool that requires approval does not advertise itself as read-only", async () => {
    const readRecord = tool(
      {
        description: "Reads a customer record.",
        sideEffecting: false,
        requiresApproval: true,
        caps: ["private_data", "private_data"],
        input: NO_ARGS,
      },
      function readRecord() {
        return "r";
      },
    );
    const spec = await served([readRecord], { name: "engine", ctx: makeTestCtx() });
    await using client = await sdkClientFor(spec.url!, { ...spec.authHeaders });
    const [t] = (await client.listTools()).tools;
    expect(t!.annotations).toEqual({ readOnlyHint: false, destructiveHint: true });
    expect(t!._meta).toEqual({ agentkit: { side_effecting: false, requires_approval: true, caps: ["private_data", "private_data"] } });
    expect(spec.caps).toEqual(["private_data"]);
  });

  it("refuses a duplicate tool name in a bare list as a registry does", async () => {
    await expect(serveRegistry([named("a"), named("a")], { name: "engine", ctx: makeTestCtx() })).rejects.toThrow(
      /duplicate tool name 'a'/,
    );
  });
});

describe("serveRegistry: options", () => {
  it("refuses bad options before binding anything", async () => {
    const ctx = makeTestCtx();
    await expect(serveRegistry([runCheck], { name: "engine", ctx: {} as RunContext })).rejects.toThrow(OptionsError);
    await expect(serveRegistry([runCheck], { name: "engine", ctx, timeoutMs: 0 })).rejects.toThrow(/timeoutMs must be a positive number/);
    await expect(serveRegistry([runCheck], { name: "engine", ctx, transport: "ws" as never })).rejects.toThrow(
      'serveRegistry: transport must be one of "http", "stdio" (default "http"), got string "ws"',
    );
    await expect(serveRegistry([runCheck], { name: "engine", ctx, command: ["x"] })).rejects.toThrow(
      /command applies to transport "stdio" only/,
    );
    await expect(serveRegistry([runCheck], { name: "engine", ctx, guard: "no" as never })).rejects.toThrow(/guard must be a function/);
    await expect(serveRegistry([runCheck], { name: "engine", ctx, token: "constant" } as never)).rejects.toThrow(/never supplied/);
  });

  it("refuses an option it does not know, naming it and the accepted ones (it used to be dropped silently)", async () => {
    const ctx = makeTestCtx();
    const err = await serveRegistry([runCheck], { name: "engine", ctx, host: "0.0.0.0" } as never).then(
      () => undefined,
      (e: unknown) => e as OptionsError,
    );
    expect(err).toBeInstanceOf(OptionsError);
    expect([err!.code, err!.where, err!.option]).toEqual(["invalid_option", "serveRegistry", "host"]);
    expect(err!.message).toBe(
      "serveRegistry: unknown option 'host'. Accepted options: name, ctx, transport, command, env, timeoutMs, heartbeatMs, configPath, auth, port, sessionIdleMs, maxSessions, guard, resources, prompts, suspendedCalls, cacheHint, tasks, results, skills",
    );
    await expect(serveRegistryStdio([runCheck], { name: "engine", ctx, transport: "stdio" } as never)).rejects.toThrow(
      "serveRegistryStdio: unknown option 'transport'. Accepted options: name, ctx, timeoutMs, heartbeatMs, guard, resources, prompts, stdin, stdout, tasks, results, skills",
    );
    await expect(serveRegistry([runCheck], { name: "engine", ctx, auth: "basic" } as never)).rejects.toThrow(
      'serveRegistry: auth must be one of "token", "none" (default "token"), got string "basic"',
    );
    await expect(serveRegistry([runCheck], { name: "engine", ctx, port: 65536 })).rejects.toThrow(
      "serveRegistry: port must be an integer 0-65535 (0 = ephemeral), got number 65536",
    );
  });

  it("serves the sessionless server/discover probe and a stateless tools/call", async () => {
    const spec = await served([runCheck], { name: "engine", ctx: makeTestCtx() });
    const discover = await rpcMessages(
      await rawPost(spec.url!, { jsonrpc: "2.0", id: 1, method: "server/discover" }, { ...spec.authHeaders }),
    );
    expect(discover[0]).toMatchObject({ error: { code: -32601 } });
    const call = await rpcMessages(
      await rawPost(
        spec.url!,
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "run_check", arguments: { name: "lint" } } },
        { ...spec.authHeaders },
      ),
    );
    expect(call[0]).toMatchObject({ id: 2, result: { content: [{ type: "text", text: "lint:lax:ok" }] } });
    expect(spec.callsSeen).toBe(1);
  });
});

/** A tool that takes `ms` and then answers, unless its context is cancelled first. */
function sleeper(ms: number) {
  return tool(
    { description: `Answers after ${ms} ms.`, sideEffecting: false, input: NO_ARGS },
    async function sleepThenAnswer(_i, ctx: RunContext) {
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, ms);
        ctx.signal.addEventListener("abort", () => (clearTimeout(t), reject(ctx.signal.reason)), { once: true });
      });
      return `answered after ${ms} ms`;
    },
  );
}

/** A request to the endpoint with the session id and whatever auth `auth` says. */
function sessionRequest(url: string, method: "GET" | "DELETE", sessionId: string, auth: Record<string, string>): Promise<Response> {
  const ac = new AbortController();
  return fetch(url, {
    method,
    headers: {
      "Mcp-Session-Id": sessionId,
      "Mcp-Protocol-Version": INITIALIZE.params.protocolVersion,
      Accept: "text/event-stream",
      ...auth,
    },
    signal: ac.signal,
  }).then(async (res) => {
    // An accepted GET is an open SSE stream: read nothing more, close it.
    if (res.headers.get("content-type")?.includes("text/event-stream")) ac.abort();
    else await res.text();
    return res;
  });
}

describe("serveRegistry: the bearer token on every HTTP request", () => {
  const WRONG = { Authorization: `Bearer ${"x".repeat(43)}` };

  it("GET (SSE) and DELETE with a valid session id but a missing or wrong token get 401; the session survives", async () => {
    const spec = await served([runCheck], { name: "engine", ctx: makeTestCtx() });
    const init = await rawPost(spec.url!, INITIALIZE, { ...spec.authHeaders });
    expect(init.status).toBe(200);
    const sid = init.headers.get("mcp-session-id")!;
    expect(sid).toBeTruthy();
    await init.text();
    const initialized = await rawPost(
      spec.url!,
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { ...spec.authHeaders, "Mcp-Session-Id": sid },
    );
    expect(initialized.status).toBe(202);

    for (const method of ["GET", "DELETE"] as const) {
      for (const auth of [{}, WRONG, { Authorization: "Basic dXNlcjpwYXNz" }]) {
        const res = await sessionRequest(spec.url!, method, sid, auth);
        expect({ method, auth, status: res.status }).toEqual({ method, auth, status: 401 });
        expect(res.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
      }
    }

    // The refused DELETEs ended nothing: the session still answers with the token.
    const listed = await rawPost(
      spec.url!,
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { ...spec.authHeaders, "Mcp-Session-Id": sid },
    );
    expect(listed.status).toBe(200);
    expect((await rpcMessages(listed))[0]).toMatchObject({ id: 2, result: { tools: [{ name: "run_check" }, { name: "read_result" }] } });
    // With the token, the same GET opens the stream and the same DELETE ends the session.
    expect((await sessionRequest(spec.url!, "GET", sid, { ...spec.authHeaders })).status).toBe(200);
    expect((await sessionRequest(spec.url!, "DELETE", sid, { ...spec.authHeaders })).status).toBe(200);
    const after = await rawPost(spec.url!, { jsonrpc: "2.0", id: 3, method: "tools/list" }, { ...spec.authHeaders, "Mcp-Session-Id": sid });
    expect(after.status).toBe(404);
    await after.text();
  });
});

describe("serveRegistry: no timeoutMs, no deadline", () => {
  it("a tool slower than a short deadline (1.5 s) still returns its result", async () => {
    const spec = await served([sleeper(1_500)], { name: "engine", ctx: makeTestCtx() });
    await using client = await sdkClientFor(spec.url!, { ...spec.authHeaders });
    const started = performance.now();
    const r = await client.callTool({ name: "sleep_then_answer", arguments: {} });
    expect(r).toEqual({ content: [{ type: "text", text: "answered after 1500 ms" }] });
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_400);
  });
});
