/**
 * @module mcp/serve/serve-registry
 * `serveRegistry()`: a `ToolRegistry` (or a bare list of tools) served as an
 * MCP server the Claude and Codex CLIs can call — over the loopback listener
 * in this process, or as a stdio command the CLI spawns.
 */
import type { SdkServer } from "./sdk-server.js";
import { checkOneOf, checkTimeoutMs } from "../../options/option-checks.js";
import { describeValue } from "../../util/format.js";
import type { RunContext } from "../../context/run-context.js";
import { checkSessionOptions, LoopbackMcpTransport } from "../loopback/loopback-transport.js";
import { checkServerName } from "../../wire/names.js";
import { codexToolTimeoutSec } from "../../wire/codex-mcp.js";
import { McpServerSpec } from "./mcp-server-spec.js";
import { buildCatalog, type ServedCatalog, type ToolSource } from "./served-catalog.js";
import { newCallCounter, servedServerFactory, type CallCounter, type ToolGuard } from "./served-server.js";
import { OptionsError } from "../../errors/options.error.js";
import { checkHeartbeatMs } from "./heartbeat.js";
import { SuspendedCalls } from "./suspended-calls.js";
import { checkCacheHint, servedExtras, type PromptsOption, type ResourceSource } from "./served-extras.js";
import type { CacheHint } from "../../tools/served-options.js";

/** Options of `serveRegistry()`. */
export interface ServeRegistryOptions {
  /** The server name (`engine`): one token of `[A-Za-z0-9_-]`, refused (not rewritten) otherwise. */
  name: string;
  /** The run context: each call runs in `ctx.child({ caller })`, cancelled with the run, by the client (`notifications/cancelled`) and at the deadline; cancelling the run stops dispatch. */
  ctx: RunContext;
  /** `"http"` (default): tools run in this process, on the loopback listener. `"stdio"`: the CLI spawns `command`. */
  transport?: "http" | "stdio";
  /** stdio only, required there: the command the CLI spawns (e.g. `stdioCommand("./dist/mcp-server.js")`). */
  command?: readonly string[];
  /** stdio only: environment for the spawned command (often the only way it can find your package). */
  env?: Record<string, string>;
  /** Per-call deadline in ms. Default: none — forever; a default deadline would kill legitimately slow tools and read as a flake. */
  timeoutMs?: number;
  /**
   * While a call is pending (a guard waiting on a person, or a slow tool), its
   * client gets a progress notification whenever the call has been silent this
   * long, so a CLI with an idle limit (Claude Code: 300 s over HTTP) keeps
   * waiting; only `timeoutMs` ends a call. Sent only to a client that gave the
   * call a progress token. Default 30,000; 0 turns it off.
   */
  heartbeatMs?: number;
  /** Where to write the config file; default a fresh 0700 `agentkit-*` directory under `os.tmpdir()`. A path you give is yours: only the file is removed. */
  configPath?: string;
  /** HTTP only: `"token"` (default) or `"none"` (no bearer token; only when asked for by name). */
  auth?: "token" | "none";
  /** HTTP only: a fixed port; default 0 (ephemeral). A busy port rejects with the real `EADDRINUSE` error. */
  port?: number;
  /** HTTP only: a session with no request for this long is closed; a request naming it gets 404 and the client re-initializes. Default 30 minutes. */
  sessionIdleMs?: number;
  /** HTTP only: most live sessions; past it the oldest idle one closes, and with none idle a new `initialize` gets 503. Default 1,000. */
  maxSessions?: number;
  /** Consulted (only when given) after the cancellation check and before argument validation and `run()`; see `ToolGuard`. */
  guard?: ToolGuard;
  /** Resources to serve: `@Resource` classes (built once by tsyringe's root container) or `ServableResource` objects. */
  resources?: readonly ResourceSource[];
  /** Prompts to serve: `@Prompt` classes, `ServablePrompt` objects, core `PromptTemplate`s, or a record of name -> text or `PromptTemplate`. */
  prompts?: PromptsOption;
  /**
   * HTTP, MCP 2026-07-28 only: a `ctx.elicit()` / `ctx.sample()` suspends its
   * call (answered `input_required`) until the client retries with the answer.
   * `max` calls may wait at once (default 64; the next question is refused
   * with a `ClientRequestError`); each waits `ttlMs` at most (default 600,000),
   * then its context is cancelled with a `ClientGaveUp`.
   */
  suspendedCalls?: { readonly max?: number; readonly ttlMs?: number };
  /**
   * MCP 2026-07-28: the cache hint (`ttlMs`, `cacheScope`) the list results
   * carry (`tools/list`, `resources/list`, `resources/templates/list`,
   * `prompts/list`, and `server/discover`). Default `{ ttlMs: 0, cacheScope:
   * "private" }`: a client lists again each time, since `addTool()` and the
   * like change the lists while serving (clients that keep a
   * `subscriptions/listen` stream open hear of each change anyway). A served
   * resource's own `cacheHint` covers its reads.
   */
  cacheHint?: CacheHint;
}

/** The longest delay a Node timer takes (2^31 - 1 ms). */
const MAX_TIMER_MS = 2_147_483_647;

/** The `suspendedCalls` option checked: positive integers, or `OptionsError` naming the field. */
function checkSuspendedCalls(value: ServeRegistryOptions["suspendedCalls"]): void {
  if (value === undefined) return;
  if (value === null || typeof value !== "object") throw new OptionsError("serveRegistry", "suspendedCalls", `serveRegistry: suspendedCalls must be an object { max?, ttlMs }, got ${describeValue(value)}`);
  for (const key of ["max", "ttlMs"] as const) {
    const v = value[key];
    if (v !== undefined && !(Number.isSafeInteger(v) && v > 0 && v <= MAX_TIMER_MS)) throw new OptionsError("serveRegistry", "suspendedCalls", `serveRegistry: suspendedCalls.${key} must be a whole number from 1 to ${MAX_TIMER_MS}, got ${describeValue(v)}`);
  }
}


const STDIO_NEEDS_COMMAND =
  'serveRegistry: transport "stdio" needs command. With stdio the CLI spawns the server itself, so the tools are rebuilt in a fresh process — this process\'s registry, closures and ctx do not cross that boundary. Pass command (e.g. command: stdioCommand("./dist/mcp-server.js")) naming an entry point that calls serveRegistryStdio(...), or use transport "http" (the default) to keep the tools in this process.';

function checkOptions(options: ServeRegistryOptions): "http" | "stdio" {
  if (!options || typeof options !== "object") throw new OptionsError("serveRegistry", "options", "serveRegistry: options { name, ctx } are required");
  if ("token" in options) {
    throw new OptionsError("serveRegistry", "token", 'serveRegistry: the bearer token is generated by the listener and never supplied; read it from spec.authHeaders, or pass auth: "none"');
  }
  checkServerName(options.name);
  const ctx = options.ctx as Partial<RunContext> | undefined;
  if (!ctx || typeof ctx.child !== "function" || !(ctx.signal instanceof AbortSignal)) {
    throw new OptionsError("serveRegistry", "ctx", "serveRegistry: ctx must be a RunContext (served calls run in ctx.child(...)); e.g. makeTestCtx() or new RunContext()");
  }
  const transport = checkOneOf(options.transport, ["http", "stdio"], "serveRegistry", "transport", "http");
  checkTimeoutMs(options.timeoutMs, "serveRegistry");
  checkHeartbeatMs(options.heartbeatMs, "serveRegistry");
  checkSuspendedCalls(options.suspendedCalls);
  if (options.guard !== undefined && typeof options.guard !== "function") {
    throw new OptionsError("serveRegistry", "guard", "serveRegistry: guard must be a function (request) => Promise<{ allowed, ... }>");
  }
  if (transport === "stdio") {
    const c = options.command;
    if (c === undefined || c === null) throw new OptionsError("serveRegistry", "command", STDIO_NEEDS_COMMAND);
    if (!Array.isArray(c) || c.length === 0 || !c.every((x) => typeof x === "string") || !c[0]) {
      throw new OptionsError("serveRegistry", "command", `serveRegistry: command must be a non-empty array of strings (program first), got ${JSON.stringify(c)}`);
    }
    for (const key of ["port", "auth", "sessionIdleMs", "maxSessions", "suspendedCalls"] as const) {
      if (options[key] !== undefined) throw new OptionsError("serveRegistry", key, `serveRegistry: ${key} applies to transport "http" only; a stdio server has no listener`);
    }
    if (options.env !== undefined && (typeof options.env !== "object" || Object.values(options.env).some((v) => typeof v !== "string"))) {
      throw new OptionsError("serveRegistry", "env", "serveRegistry: env must map names to string values");
    }
  } else {
    checkSessionOptions(options, "serveRegistry");
    for (const key of ["command", "env"] as const) {
      if (options[key] !== undefined) {
        throw new OptionsError("serveRegistry", key, `serveRegistry: ${key} applies to transport "stdio" only; an HTTP server runs the tools in this process`);
      }
    }
  }
  return transport;
}

/**
 * Serve a registry (or a bare iterable of tools, registered for you) as an
 * MCP server. Resolves once the port is bound and held (HTTP) and the 0600
 * config file is written; the spec is not serving until `start()`.
 *
 * - Tools are advertised with their `schema.parameters` as `inputSchema`,
 *   untranslated; schema-less tools are dropped (see `spec.toolNames`).
 *   Names are sanitised to `[A-Za-z0-9_-]` (`spec.mcpNames` has the mapping).
 * - Each call: counted (`callsSeen`), refused if the run was cancelled, passed
 *   to `guard` when given, then `tool.run(args, ctx.child(...))`. The handler
 *   never throws: a bad call, a failure, an unknown tool, a cancellation or a
 *   missed deadline is an `isError` result the model can read.
 *
 * - `resources` and `prompts` are served beside the tools (`resources/*`,
 *   `prompts/*`, `completion/complete`); a read or render that throws is a
 *   JSON-RPC error carrying its message, and the session stays up.
 *
 * Rejects (before binding or writing anything) with `McpNameError` for an
 * invalid server name, colliding sanitised names or a qualified name over 64
 * characters; `OptionsError` for bad options — including
 * `transport: "stdio"` without `command`; `DuplicateToolError` for two tools
 * with one name. A busy fixed `port` rejects with Node's `EADDRINUSE` error.
 */
export async function serveRegistry(registryOrTools: ToolSource, options: ServeRegistryOptions): Promise<McpServerSpec> {
  const transport = checkOptions(options);
  const catalog: ServedCatalog = buildCatalog(registryOrTools, options.name);
  const extras = servedExtras(options);
  const counter: CallCounter = newCallCounter();
  const heartbeatMs = checkHeartbeatMs(options.heartbeatMs, "serveRegistry");
  const toolTimeoutSec = codexToolTimeoutSec(options.timeoutMs, heartbeatMs);
  if (transport === "stdio") {
    const [command, ...args] = options.command!;
    const stdio = Object.freeze({ command: command!, args: Object.freeze(args), env: Object.freeze({ ...(options.env ?? {}) }) });
    return new McpServerSpec({ catalog, counter, configPath: options.configPath, listener: null, stdio, guarded: false, extras, toolTimeoutSec });
  }
  const live = new Set<SdkServer>();
  const listener = await LoopbackMcpTransport.bind({
    serverFactory: servedServerFactory(catalog, { ctx: options.ctx, timeoutMs: options.timeoutMs, heartbeatMs, guard: options.guard, extras, live, suspended: new SuspendedCalls(options.suspendedCalls?.max, options.suspendedCalls?.ttlMs), cacheHint: checkCacheHint(options.cacheHint, "serveRegistry: cacheHint") }, counter),
    port: options.port,
    auth: options.auth ?? "token",
    ...(options.sessionIdleMs !== undefined ? { sessionIdleMs: options.sessionIdleMs } : {}),
    ...(options.maxSessions !== undefined ? { maxSessions: options.maxSessions } : {}),
  });
  try {
    return new McpServerSpec({ catalog, counter, configPath: options.configPath, listener, stdio: null, guarded: options.guard !== undefined, extras, live, toolTimeoutSec });
  } catch (err) {
    await listener.stop();
    throw err;
  }
}
