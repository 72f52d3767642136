/**
 * @module mcp/serve/serve-registry
 * `serveRegistry()`: a `ToolRegistry` (or a bare list of tools) served as an
 * MCP server the Claude and Codex CLIs can call — over the loopback listener
 * in this process, or as a stdio command the CLI spawns.
 */
import type { SdkServer } from "../peers/sdk-server.js";
import { checkOptions, opt, type CheckedOptions, type OptionRule } from "../../options/option-checks.js";
import { describeValue } from "../../util/format.js";
import type { RunContext } from "../../context/run-context.js";
import { LoopbackMcpTransport, SESSION_OPTION_RULES } from "../loopback/loopback-transport.js";
import { SESSION_DEFAULTS } from "../loopback/session-table.js";
import { checkServerName } from "../../wire/names.js";
import { codexToolTimeoutSec } from "../../wire/codex-mcp.js";
import { McpServerSpec } from "./mcp-server-spec.js";
import { buildCatalog, type ServedCatalog, type ToolSource } from "./served-catalog.js";
import { newCallCounter, servedServerFactory, type CallCounter, type ToolGuard } from "./served-server.js";
import { OptionsError } from "../../errors/options.error.js";
import { checkHeartbeatMs, DEFAULT_HEARTBEAT_MS } from "./heartbeat.js";
import { SuspendedCalls } from "./suspended-calls.js";
import { checkCacheHint, servedExtras, type PromptsOption, type ResourceSource, type ServedExtras } from "./served-extras.js";
import type { CacheHint } from "../../tools/served-options.js";
import { checkTasksOption, ServedTasks, type TasksOptions } from "./served-tasks.js";
import { checkResultsOption, moduleBudget, type ResultsOptions } from "./served-results.js";
import { serveResults } from "./served-server.js";
import { checkSkillsOption, loadSkillsOption, type SkillsOption } from "./served-skills.js";

/** Options of `serveRegistry()`. */
export interface ServeRegistryOptions {
  /** The server name (`engine`): one token of `[A-Za-z0-9_-]`, refused (not rewritten) otherwise. */
  name: string;
  /**
   * The run context: each call runs in `ctx.child({ caller })`, cancelled with the run, by the client
   * (`notifications/cancelled`) and at the deadline; cancelling the run stops dispatch.
   */
  ctx: RunContext;
  /** `"http"` (default): tools run in this process, on the loopback listener. `"stdio"`: the CLI spawns `command`. */
  transport?: "http" | "stdio";
  /** stdio only, required there: the command the CLI spawns (e.g. `stdioCommand("./dist/mcp-server.js")`). */
  command?: readonly string[];
  /** stdio only: environment for the spawned command (often the only way it can find your package). */
  env?: Record<string, string>;
  /**
   * Per-call deadline in ms. Default: none — forever; a default deadline would kill legitimately slow tools and read as
   * a flake. A call that became an MCP task is no longer held to it.
   */
  timeoutMs?: number;
  /**
   * While a call is pending (a guard waiting on a person, or a slow tool), its
   * client gets a progress notification whenever the call has been silent this
   * long, so a CLI with an idle limit (Claude Code: 300 s over HTTP) keeps
   * waiting; only `timeoutMs` ends a call. Sent only to a client that gave the
   * call a progress token. Default 30,000; 0 turns it off.
   */
  heartbeatMs?: number;
  /**
   * Where to write the config file; default a fresh 0700 `agentkit-*` directory under `os.tmpdir()`. A path you give is
   * yours: only the file is removed.
   */
  configPath?: string;
  /** HTTP only: `"token"` (default) or `"none"` (no bearer token; only when asked for by name). */
  auth?: "token" | "none";
  /** HTTP only: a fixed port; default 0 (ephemeral). A busy port rejects with the real `EADDRINUSE` error. */
  port?: number;
  /**
   * HTTP only: a session with no request for this long is closed; a request naming it gets 404 and the client
   * re-initializes. Default 30 minutes.
   */
  sessionIdleMs?: number;
  /** HTTP only: most live sessions; past it the oldest idle one closes, and with none idle a new `initialize` gets 503. Default 1,000. */
  maxSessions?: number;
  /** Consulted (only when given) after the cancellation check and before argument validation and `run()`; see `ToolGuard`. */
  guard?: ToolGuard;
  /** Resources to serve: `@Resource` classes (built once by tsyringe's root container) or `ServableResource` objects. */
  resources?: readonly ResourceSource[];
  /**
   * Prompts to serve: `@Prompt` classes, `ServablePrompt` objects, core `PromptTemplate`s, or a record of name -> text
   * or `PromptTemplate`.
   */
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
  /**
   * MCP tasks (`io.modelcontextprotocol/tasks`, 2026-07-28): where task
   * records live (`store`, default in-process memory) and how they are
   * handed out (`afterMs` default 10,000, `ttlMs` default a day,
   * `pollIntervalMs` default 1,000). A call becomes a task only for a client
   * that declared the extension; see the tool option `task`.
   */
  tasks?: TasksOptions;
  /**
   * Served results within a budget, on by default: `maxChars` (default
   * 20,000) is a tool's budget unless it declares `maxResultChars`; a result
   * over it is answered with a preview and a link to
   * `agentkit://results/<id>`, readable with the module's `read_result` tool
   * (listed in `tools/list` beside the module's own), kept in `store`
   * (default in-process, an hour). `false` turns the module-wide budget off
   * (only a tool's own `maxResultChars` is kept to). See `ResultsOptions`.
   */
  results?: ResultsOptions | false;
  /**
   * A folder of skills to serve (the MCP Skills extension, through the SDK's
   * `ext/skills`): `<name>/SKILL.md` plus its files, one folder per skill, as
   * `skills/list`, `skills/get` and `skill://<skill>/<path>` resources with
   * their sha256 digests, on both protocol eras. A path, or `{ dir, scopes }`
   * (hosted: the scopes a token needs to see them). Read once, at serve: a
   * missing folder or a skill the extension refuses (a malformed `SKILL.md`,
   * a name unlike its folder) rejects, naming the file.
   */
  skills?: SkillsOption;
}

/** The longest delay a Node timer takes (2^31 - 1 ms). */
const MAX_TIMER_MS = 2_147_483_647;

/** One field of `suspendedCalls`: a whole number of 1..MAX_TIMER_MS, or unset. */
const suspendedField: OptionRule<number | undefined> = (v, where, option) => {
  if (v !== undefined && !(Number.isSafeInteger(v) && (v as number) > 0 && (v as number) <= MAX_TIMER_MS))
    throw new OptionsError(where, option, `${where}: ${option} must be a whole number from 1 to ${MAX_TIMER_MS}, got ${describeValue(v)}`);
  return v as number | undefined;
};

/** `ctx`: a run context (served calls run in `ctx.child(...)`, cancelled with its signal). */
const servedCtx: OptionRule<RunContext> = (v, where, option) => {
  const ctx = v as Partial<RunContext> | undefined;
  if (!ctx || typeof ctx.child !== "function" || !(ctx.signal instanceof AbortSignal)) {
    throw new OptionsError(
      where,
      option,
      `${where}: ctx must be a RunContext (served calls run in ctx.child(...)); e.g. makeTestCtx() or new RunContext()`,
    );
  }
  return v as RunContext;
};

/** The options of `serveRegistry()`, declared once; the rules that join two options follow in `checkServeOptions`. */
const SERVE_OPTIONS = {
  name: (v: unknown) => checkServerName(v),
  ctx: servedCtx,
  transport: opt.oneOf(["http", "stdio"] as const, "http"),
  command: opt.that<readonly string[]>(
    (c) => Array.isArray(c) && c.length > 0 && c.every((x) => typeof x === "string") && c[0] !== "",
    "a non-empty array of strings (program first)",
  ),
  env: opt.stringRecord(),
  timeoutMs: opt.timeoutMs(),
  heartbeatMs: (v: unknown, where: string) => checkHeartbeatMs(v, where),
  configPath: opt.string("a file path", true),
  auth: opt.oneOf(["token", "none"] as const, "token"),
  port: opt.port(),
  sessionIdleMs: SESSION_OPTION_RULES.sessionIdleMs,
  maxSessions: SESSION_OPTION_RULES.maxSessions,
  guard: opt.fn<ToolGuard>("(request) => Promise<{ allowed, ... }>"),
  resources: opt.any<ServeRegistryOptions["resources"]>(),
  prompts: opt.any<ServeRegistryOptions["prompts"]>(),
  suspendedCalls: opt.object({ max: suspendedField, ttlMs: suspendedField }),
  cacheHint: (v: unknown, where: string) => checkCacheHint(v as CacheHint | undefined, `${where}: cacheHint`),
  tasks: (v: unknown, where: string) => checkTasksOption(v, where),
  results: (v: unknown, where: string) => checkResultsOption(v, where),
  skills: (v: unknown, where: string) => checkSkillsOption(v, where),
} as const;

/**
 * `serveRegistry()`'s options checked, defaults filled in: what `serveCatalog`
 * takes. `bootstrap` builds one (`servePlan`) from facts it checked when the
 * module was decorated and scanned.
 */
export type ServePlan = CheckedOptions<typeof SERVE_OPTIONS>;

const STDIO_NEEDS_COMMAND =
  'serveRegistry: transport "stdio" needs command. With stdio the CLI spawns the server itself, so the tools are rebuilt in a fresh process — this process\'s registry, closures and ctx do not cross that boundary. Pass command (e.g. command: stdioCommand("./dist/mcp-server.js")) naming an entry point that calls serveRegistryStdio(...), or use transport "http" (the default) to keep the tools in this process.';

const HTTP_ONLY = ["port", "auth", "sessionIdleMs", "maxSessions", "suspendedCalls"] as const;
const STDIO_ONLY = ["command", "env"] as const;
const TOKEN_HINT = {
  token: 'the bearer token is generated by the listener and never supplied; read it from spec.authHeaders, or pass auth: "none"',
};

/** Check `options` against the spec, then the rules that join two options (what goes with which transport). */
export function checkServeOptions(options: ServeRegistryOptions): ServePlan {
  const where = "serveRegistry";
  if (!options || typeof options !== "object")
    throw new OptionsError(where, "options", `${where}: options { name, ctx } are required, got ${describeValue(options)}`);
  const plan = checkOptions(options, where, SERVE_OPTIONS, TOKEN_HINT);
  const [given, other] =
    plan.transport === "stdio"
      ? [HTTP_ONLY, 'http" only; a stdio server has no listener']
      : [STDIO_ONLY, 'stdio" only; an HTTP server runs the tools in this process'];
  const misplaced = (given as readonly (keyof ServeRegistryOptions)[]).find((key) => options[key] !== undefined);
  if (misplaced) throw new OptionsError(where, misplaced, `${where}: ${misplaced} applies to transport "${other}`);
  if (plan.transport === "stdio" && plan.command === undefined) throw new OptionsError(where, "command", STDIO_NEEDS_COMMAND);
  return plan;
}

/** A plan with every default but `name` and `ctx` filled in, then `given` (not checked: the caller checked it). */
export function servePlan(name: string, ctx: RunContext, given: Partial<ServePlan> = {}): ServePlan {
  const defaults: ServePlan = {
    name,
    ctx,
    transport: "http",
    command: undefined,
    env: undefined,
    timeoutMs: undefined,
    heartbeatMs: DEFAULT_HEARTBEAT_MS,
    configPath: undefined,
    auth: "token",
    port: 0,
    sessionIdleMs: SESSION_DEFAULTS.sessionIdleMs,
    maxSessions: SESSION_DEFAULTS.maxSessions,
    guard: undefined,
    resources: undefined,
    prompts: undefined,
    suspendedCalls: undefined,
    cacheHint: undefined,
    tasks: undefined,
    results: undefined,
    skills: undefined,
  };
  return Object.freeze({ ...defaults, ...given });
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
 * Rejects (before binding or writing anything) with an `AgentkitError` (code `mcp_name`) for an
 * invalid server name, colliding sanitised names or a qualified name over 64
 * characters; `OptionsError` for a bad or unknown option (naming it and what
 * is accepted) — including `transport: "stdio"` without `command`; `DuplicateToolError` for two tools
 * with one name. A busy fixed `port` rejects with Node's `EADDRINUSE` error.
 */
export async function serveRegistry(registryOrTools: ToolSource, options: ServeRegistryOptions): Promise<McpServerSpec> {
  const plan = checkServeOptions(options);
  const catalog = buildCatalog(registryOrTools, plan.name, undefined, moduleBudget(plan.results));
  const skills = await loadSkillsOption(plan.skills, "serveRegistry");
  return serveCatalog(catalog, servedExtras({ resources: plan.resources, prompts: plan.prompts, skills }), plan);
}

/**
 * `serveRegistry` on what is already checked — the catalog, the resources
 * and prompts, the options — so nothing is checked again: bootstrap's entry
 * (its scan checked the names, its build the served items).
 */
export async function serveCatalog(catalog: ServedCatalog, extras: ServedExtras, plan: ServePlan): Promise<McpServerSpec> {
  const counter: CallCounter = newCallCounter();
  const toolTimeoutSec = codexToolTimeoutSec(plan.timeoutMs, plan.heartbeatMs);
  // The module's read_result tool (and its resource) when budgets are on, listed on every path: a stdio child serves the same.
  const results = serveResults(catalog, extras, plan.results);
  if (plan.transport === "stdio") {
    const [command, ...args] = plan.command!;
    const stdio = Object.freeze({ command: command!, args: Object.freeze(args), env: Object.freeze({ ...(plan.env ?? {}) }) });
    return new McpServerSpec({
      catalog,
      counter,
      configPath: plan.configPath,
      listener: null,
      stdio,
      guarded: false,
      extras,
      toolTimeoutSec,
    });
  }
  const live = new Set<SdkServer>();
  const tasks = new ServedTasks(plan.name, plan.tasks);
  const served = {
    ctx: plan.ctx,
    timeoutMs: plan.timeoutMs,
    heartbeatMs: plan.heartbeatMs,
    guard: plan.guard,
    extras,
    live,
    suspended: new SuspendedCalls(plan.suspendedCalls?.max, plan.suspendedCalls?.ttlMs),
    cacheHint: plan.cacheHint,
    tasks,
    results,
  };
  // Tasks a dead process left on the store: decided before the first request (see served-tasks).
  await tasks.recover(catalog, plan.ctx, undefined, plan.guard);
  const listener = await LoopbackMcpTransport.bind({
    serverFactory: servedServerFactory(catalog, served, counter),
    port: plan.port,
    auth: plan.auth,
    sessionIdleMs: plan.sessionIdleMs,
    maxSessions: plan.maxSessions,
  });
  try {
    return new McpServerSpec({
      catalog,
      counter,
      configPath: plan.configPath,
      listener,
      stdio: null,
      guarded: plan.guard !== undefined,
      extras,
      live,
      toolTimeoutSec,
      tasks,
    });
  } catch (err) {
    await listener.stop();
    throw err;
  }
}
