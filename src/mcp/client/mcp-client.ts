/**
 * @module mcp/client/mcp-client
 * `MCPClient`: one connection to one MCP server — transport and session opened
 * in one step, closed in one step — with 30-second list caches.
 */
import { OptionsError } from "../../errors/options.error.js";
import type {
  CacheMode,
  CallToolResult,
  Client,
  DiscoverResult,
  Implementation,
  Prompt as SdkPrompt,
  Resource,
  Root,
  ServerCapabilities,
  Tool as SdkTool,
  Transport,
} from "@modelcontextprotocol/client";
import { ListCache, type CachedList } from "./list-cache.js";
import { TaskOutputChecks } from "./tool-output.js";
import type { RunContext } from "../../context/run-context.js";
import { AgentkitError } from "../../errors/agentkit.error.js";
import { Cancelled } from "../../errors/cancelled.error.js";
import { deepFreeze } from "../../util/format.js";
import { promptText, resourceText } from "./content.js";
import { connectSession, exitNote, isSessionGone, sessionCapabilities, stderrTail, type SessionRecipe } from "./connect-session.js";
import { notEntered } from "./mcp-not-entered.error.js";
import { McpRequestError, sessionLostError } from "./mcp-request.error.js";
import { checkRoots, LIMIT_OPTION_RULES, ServerRequests } from "./server-requests.js";
import { checkOptions, isTimeoutMs, opt, type OptionRule } from "../../options/option-checks.js";
import { InMemoryServer, StdioServer, StreamableHttpServer, type McpServerConfig } from "./servers.js";
import { ProcessGroupStdioTransport } from "./stdio-transport.js";
import { endRequest, noteRequest, outgoingRequest, traceMeta } from "../../context/run-observer.js";
import type { TracedCall } from "../../context/run-context.js";
import { McpTask, type McpTaskReference, type TaskChannel } from "./mcp-task.js";
import { declareTasks, isTerminal, taskHandleOf, type TaskSnapshot } from "./task-codec.js";
import { checkReference, taskChannel } from "./task-channel.js";
import type { CallProgress } from "./call-progress.js";

export type { CallProgress } from "./call-progress.js";
import { clientSdk, clientSkills, clientValidator, type ClientSdk } from "../peers/sdk-client.js";
import type { Skill, SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { skillEntry, type McpSkill, type McpSkillEntry } from "./skill-entry.js";
import { pyList } from "../../util/format.js";
import { checkMaxResultChars, cutText, SpilledResults } from "./result-budget.js";
import { isUsable, nextSession, type SessionEvent, type SessionState } from "./session-state.js";
import { ignoreRejection } from "../../util/logger.js";
import { graceSignal } from "./answer-grace.js";

/** How long `listTools()` / `listResources()` results are served from cache: 30 s (`{ forceRefresh: true }` skips it). */
export const DEFAULT_TTL_MS = 30_000;

/** The options of `MCPClient.start()`, declared once. */
const MCP_CLIENT_OPTIONS = {
  clientInfo: opt.that<{ readonly name: string; readonly version: string }>(
    (v) => typeof (v as Implementation)?.name === "string" && typeof (v as Implementation).version === "string",
    "{ name, version } (two strings)",
  ),
  ttlMs: opt.nonNegativeMs(DEFAULT_TTL_MS),
  requestTimeoutMs: opt.that<number>(isTimeoutMs, "a positive number of milliseconds"),
  signal: opt.that<AbortSignal>((v) => v instanceof AbortSignal, "an AbortSignal"),
  ctx: opt.that<RunContext>(
    (v) => typeof (v as RunContext).child === "function" && (v as RunContext).signal instanceof AbortSignal,
    "a RunContext (e.g. new RunContext({ asker, llm }))",
  ),
  roots: (v: unknown, where: string) => checkRoots(v as readonly Root[] | undefined, where),
  tasks: opt.boolean(),
  maxResultChars: (v: unknown, where: string) => checkMaxResultChars(v, where),
  ...LIMIT_OPTION_RULES,
  restart: opt.object({
    maxRestarts: ((v, where, option) => {
      if (!Number.isInteger(v) || (v as number) < 0)
        throw new OptionsError(where, option, `${where}: '${option}' must be a non-negative integer, got ${String(v)}`);
      return v as number;
    }) as OptionRule<number>,
    backoffMs: opt.nonNegativeMs(undefined),
  }),
} as const;

/** What a client keeps of its checked `start()` options. */
interface ClientSetup {
  readonly ctx: RunContext | undefined;
  readonly restart: { readonly maxRestarts: number; readonly backoffMs?: number } | undefined;
  /** Opened with `ctx` or `roots`. */
  readonly answering: boolean;
  /** The adapters' default result budget. */
  readonly maxResultChars?: number;
}

/** Options of `MCPClient.start()`. */
export interface MCPClientOptions {
  /**
   * The budget of a tool result this client's `mcpTools` adapters hand the
   * model, in characters (a positive whole number; `mcpTools`' own option
   * wins). A result over it is cut head and tail around a line naming what
   * was cut and the id `spilledResult(id)` returns the whole text for.
   * `callTool()` itself always returns what the server sent. Default: none.
   */
  readonly maxResultChars?: number;
  /** `clientInfo` sent in `initialize`. Default `{ name: "arc-agentkit", version: <package version> }`. */
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /**
   * TTL of the tools and resources list caches, in ms: the most a list is kept (a 2026-07-28 server's shorter `ttlMs`
   * wins). Default `DEFAULT_TTL_MS` (30 000).
   */
  readonly ttlMs?: number;
  /**
   * Default timeout of every request (initialize included), in ms. Default:
   * the server's `timeoutMs` for HTTP; the SDK's 60 000 for stdio.
   */
  readonly requestTimeoutMs?: number;
  /** Aborts `start()` itself (spawn + initialize); what was opened is closed. */
  readonly signal?: AbortSignal;
  /**
   * The run that answers what the server asks: `elicitation/create` goes to
   * its `asker` (none: declined, with a warning naming the server),
   * `sampling/createMessage` to its `llm` — through the gate, so under
   * `"gated"` the asker is asked first. With `ctx` (or `roots`) the client
   * declares the elicitation (form with defaults, URL), sampling and roots
   * capabilities; without either it declares none.
   */
  readonly ctx?: RunContext;
  /** What `roots/list` answers (`file://` URIs). Default none; change them with `setRoots()`. */
  readonly roots?: readonly Root[];
  /**
   * Let this server's `sampling/createMessage` reach the run's model without
   * asking. Default false: every sampling request asks the run's Asker first,
   * under every tier (no Asker: refused). True: asked only under `"gated"`,
   * like any key step. Opt in only for a server you trust to spend the model.
   */
  readonly allowSampling?: boolean;
  /**
   * The most tokens a sampling request reaches the model with; a server's larger `maxTokens` is cut to it. Default
   * 4096.
   */
  readonly maxSamplingTokens?: number;
  /**
   * How many sampling and elicitation requests this server may have pending
   * at once. Past it a request is refused at once with a JSON-RPC error
   * naming the cap (nothing is asked, the model is not called). Default
   * 4.
   */
  readonly maxServerRequests?: number;
  /**
   * Declare the MCP tasks extension (`io.modelcontextprotocol/tasks`) on
   * 2026-07-28 tool calls, so a server may answer a long call with a task,
   * which `callTool()` and the `mcpTools()` tools drive to its final result
   * and `startTool()` hands over. Default true; false: never declared, every
   * call is answered in the call. A 2025-era session never declares it.
   */
  readonly tasks?: boolean;
  /**
   * Stdio servers only, opt-in: when the server process dies, spawn it again
   * (after `backoffMs`, doubled each time; default 500) up to `maxRestarts`
   * times over the client's life, re-initialize and re-list its tools. Each
   * restart is emitted on `ctx` as `mcp.restart` (`{ server, attempt,
   * maxRestarts, reason, ok, tools? | error? }`). A call in flight when the
   * process died fails (it is not retried); calls made meanwhile wait for
   * the restart.
   */
  readonly restart?: RestartOptions;
}

/** The stdio respawn policy (`MCPClientOptions.restart`). */
export interface RestartOptions {
  /** Restarts allowed over the client's life (a non-negative integer). */
  readonly maxRestarts: number;
  /** The wait before the first restart, in ms, doubled for each further one. Default 500. */
  readonly backoffMs?: number;
}

/** Options of `listTools()` / `listResources()`. */
export interface ListOptions {
  /** Skip the cache and list again (the result is cached). A server that just registered a tool is otherwise invisible for up to 30 s. */
  readonly forceRefresh?: boolean;
}

/** Options of `callTool()`. */
export interface CallToolOptions {
  /** The run: its cancellation is checked before the request is sent, and aborting its signal mid-call cancels the request. */
  readonly ctx?: RunContext;
  /** A further signal that cancels this call. */
  readonly signal?: AbortSignal;
  /**
   * How long, in ms, this call may go without hearing from the server
   * (overrides the client's `requestTimeoutMs`). Each progress notification
   * of the call restarts it, so a call an agentkit server keeps alive (its
   * heartbeat while a person decides, every 30 s by default) waits as long as
   * the person takes; a server silent for `timeoutMs` ends the call with
   * `McpRequestError`. Keep it above the server's heartbeat.
   */
  readonly timeoutMs?: number;
  /**
   * Called with each `notifications/progress` the server sends for this call
   * (`{ progress, total?, message? }`, as the server sent them). Progress is
   * asked for (a `progressToken` in the request) whether or not this is
   * given, since it restarts `timeoutMs`. An exception it
   * throws is not caught for you: keep it small. A call the server answered
   * with a task reports here the status the task was handed out with, then
   * each change of it, as `{ progress, message, task }` (`message`: its status
   * message, else its status; `task`: its id and status).
   */
  readonly onProgress?: (progress: CallProgress) => void;
}

/** Options of `startTool()` and `resumeTask()`. */
export interface StartToolOptions {
  /**
   * The run: its Asker answers the task's questions, aborting its signal cancels the task (`tasks/cancel`) while
   * `result()` waits, and a traced run records the task.
   */
  readonly ctx?: RunContext;
  /**
   * The task's status when `result()` starts polling, then each change of it, as `{ progress, message, task }`
   * (`message`: the server's status message, else the status).
   */
  readonly onProgress?: (progress: CallProgress) => void;
  /** The timeout of each request (`tools/call`, every `tasks/get`) in ms; the task's own life is bounded by its server's `ttlMs`. */
  readonly timeoutMs?: number;
}

/** What each list is called, and where its items are, in the SDK. */
const LISTS = {
  "tools/list": { capability: "tools", items: (r: { tools: SdkTool[] }) => r.tools },
  "resources/list": { capability: "resources", items: (r: { resources: Resource[] }) => r.resources },
  "prompts/list": { capability: "prompts", items: (r: { prompts: SdkPrompt[] }) => r.prompts },
} as const;

/** How long `stop()` waits for `tasks/cancel` requests in flight before it ends the session anyway. */
const CANCEL_GRACE_MS = 5_000;

/** Resolves once every one of `promises` settled, or after `ms` (an unref'd timer), whichever is first. */
async function settledWithin(promises: readonly Promise<unknown>[], ms: number): Promise<void> {
  if (promises.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  await Promise.race([Promise.allSettled(promises), late]);
  clearTimeout(timer);
}

/** The progress handler of a call whose caller passed none (the progress still restarts its deadline). */
const ignoreProgress = (): void => {};

/**
 * One connection to one MCP server. Start with `MCPClient.start(server)` — it
 * spawns the subprocess (or opens the HTTP transport) and initializes the
 * session in one step, and if any part fails it closes what was already opened
 * before throwing `McpConnectError`. Use `await using c = await MCPClient.start(...)`
 * or call `stop()`; stopping drops the session and both caches.
 *
 * `listTools()` and `listResources()` are cached for `DEFAULT_TTL_MS` (all
 * pages joined); `listPrompts()` is never cached. A failed refresh throws and
 * leaves the cache empty: the old list is never served as fresh. Request
 * failures throw `McpRequestError`; a cancelled call throws `Cancelled`.
 *
 * One session per client: servers that keep per-session state lose it across
 * separate clients.
 */
export class MCPClient implements AsyncDisposable {
  /** The server this client is connected to. */
  readonly server: McpServerConfig;
  /** `String(server)`, made once: a traced call names its server, and an HTTP server's name parses its URL. */
  private readonly label: string;
  private current?: Client;
  /** The default budget of this client's `mcpTools` adapters (see `MCPClientOptions.maxResultChars`); `undefined`: none. */
  readonly maxResultChars: number | undefined;
  private readonly spills = new SpilledResults();
  private transport: Transport;
  private readonly requestTimeoutMs?: number;
  /** The tools and resources lists, on the SDK's cache (see list-cache.ts). */
  private readonly lists: ListCache;
  private readonly outputs: TaskOutputChecks;
  /** The session's state (see session-state.ts); changed only by `move()`. */
  private state: SessionState = "open";
  /** `tasks/cancel` requests in flight (an aborted call's task): `stop()` lets them reach the server first. */
  private readonly cancels = new Set<Promise<void>>();
  /** The teardown stop() started (shared by concurrent callers). */
  private closing?: Promise<void>;
  private readonly answers: ServerRequests;
  /** Opened with `ctx` or `roots`: the client declared elicitation, sampling and roots. */
  private readonly answering: boolean;
  private readonly recipe: SessionRecipe;
  private readonly ctx?: RunContext;
  private readonly restartPolicy?: Required<RestartOptions>;
  private restarts = 0;
  /** A respawn (stdio) or re-initialization (HTTP 404) under way: requests wait for it. */
  private renewing?: Promise<void>;
  /** Replaced sessions still closing. */
  private readonly retired = new Set<Promise<void>>();
  /** Ends a respawn's backoff wait early (stop()). */
  private wake?: () => void;

  private constructor(
    recipe: SessionRecipe,
    session: Client,
    transport: Transport,
    options: ClientSetup,
    answers: ServerRequests,
    outputs: TaskOutputChecks,
  ) {
    this.server = recipe.server;
    this.label = String(recipe.server);
    this.recipe = recipe;
    this.answers = answers;
    this.ctx = options.ctx;
    this.answering = options.answering;
    this.maxResultChars = options.maxResultChars;
    this.outputs = outputs;
    this.current = session;
    this.transport = transport;
    this.requestTimeoutMs = recipe.timeout;
    this.lists = recipe.lists;
    this.lists.bind(this);
    this.restartPolicy = options.restart
      ? { maxRestarts: options.restart.maxRestarts, backoffMs: options.restart.backoffMs ?? 500 }
      : undefined;
    this.watch(session);
  }

  private watch(session: Client): void {
    this.lists.follow(session, this.requestTimeoutMs);
    session.onclose = () => {
      if (session !== this.current) return; // a session we replaced on purpose
      // The server went away: its lists describe nothing we can call any more.
      this.move("peer-closed");
      if (this.restartPolicy && this.state === "lost")
        void this.renew(() => this.respawn()).catch(
          ignoreRejection("respawning a lost server; the failure is the client state lost, reported on the next call"),
        );
    };
  }

  /** Apply `event` to the session state (session-state.ts) and carry out its effect. */
  private move(event: SessionEvent): void {
    const { state, effect } = nextSession(this.state, event);
    this.state = state;
    if (effect !== "none") this.lists.clear();
  }

  /**
   * The one renew path, for a respawn and a re-initialization alike: one
   * renewal at a time, shared by every caller while it runs; requests wait
   * for it (live()). `attempts` puts a new session in place (`renewed`) or
   * fails (`renew-failed`: the session stays lost).
   */
  private renew(attempts: () => Promise<void>): Promise<void> {
    return (this.renewing ??= (async () => {
      this.move("renew");
      try {
        await attempts();
      } finally {
        this.move("renew-failed"); // a no-op once renewed (open)
        this.renewing = undefined;
      }
    })());
  }

  /**
   * Open a connection to `server`: spawn or connect, then `initialize`.
   *
   * @throws McpConnectError when the server cannot be started or reached, or
   *   initialize fails (for stdio the message ends with the server's stderr
   *   tail); nothing opened is left behind.
   * @throws OptionsError when `server` is not a `StdioServer` or `StreamableHttpServer`.
   * @throws OAuthLoginRequiredError when the server's stored OAuth login was refused (log in again).
   * @throws AgentkitError (code `oauth_callback`) when an OAuth authorization came back refused or never came back.
   */
  static async start(config: McpServerConfig, options: MCPClientOptions = {}): Promise<MCPClient> {
    const server = normalise(config);
    const checked = checkOptions(options, "MCPClient.start", MCP_CLIENT_OPTIONS);
    if (checked.restart !== undefined && !(server instanceof StdioServer))
      throw new OptionsError("MCPClient.start", "restart", `MCPClient.start: 'restart' is for stdio servers only; ${server} is not one`);
    const answering = checked.ctx !== undefined || options.roots !== undefined;
    const answers = new ServerRequests(String(server), checked.ctx, checked.roots, checked);
    // The SDK is imported here, not at import time: the app's own copy (see sdk-client.ts).
    const [sdk, validator] = await Promise.all([clientSdk(), clientValidator()]);
    const timeout = checked.requestTimeoutMs ?? (server instanceof StreamableHttpServer ? server.timeoutMs : undefined);
    const lists = new ListCache(sdk, checked.ttlMs);
    const recipe: SessionRecipe = {
      sdk,
      server,
      clientInfo: checked.clientInfo,
      answers: answering ? answers : undefined,
      timeout,
      tasks: checked.tasks ?? true,
      lists,
    };
    const { session, transport } = await connectSession(recipe, checked.signal);
    return new MCPClient(
      recipe,
      session,
      transport,
      { ctx: checked.ctx, restart: checked.restart, answering, maxResultChars: checked.maxResultChars },
      answers,
      new TaskOutputChecks(validator, sdk),
    );
  }

  /**
   * The live SDK `Client`.
   *
   * @throws AgentkitError (code `mcp_not_entered`: `MCPClient not entered — use await using c = await
   *   MCPClient.start(...)`) after `stop()`.
   */
  get session(): Client {
    if (!this.current) throw notEntered();
    return this.current;
  }

  /**
   * The protocol version the session speaks: `"2026-07-28"` with a server
   * that answered `server/discover`, the 2025 version `initialize` agreed on
   * otherwise (see `ProtocolChoice`). A respawn or re-initialization may
   * change it.
   *
   * @throws AgentkitError (code `mcp_not_entered`) after `stop()`.
   */
  get protocolVersion(): string | undefined {
    return this.session.getNegotiatedProtocolVersion();
  }

  /**
   * The capabilities the server declared: from its `server/discover` answer
   * on 2026-07-28 (the latest one, see `discover()`), from `initialize` on
   * 2025.
   *
   * @throws AgentkitError (code `mcp_not_entered`) after `stop()`.
   */
  get serverCapabilities(): ServerCapabilities | undefined {
    const session = this.session;
    return session.getDiscoverResult()?.capabilities ?? session.getServerCapabilities();
  }

  /**
   * The server's name and version: from the `_meta` of its `server/discover`
   * answer on 2026-07-28 (the latest one, see `discover()`), from
   * `initialize` on 2025. Undefined when the server did not say.
   *
   * @throws AgentkitError (code `mcp_not_entered`) after `stop()`.
   */
  get serverInfo(): Implementation | undefined {
    const session = this.session;
    const discovered = session.getDiscoverResult()?._meta?.[this.sdk.SERVER_INFO_META_KEY] as Implementation | undefined;
    return discovered ?? session.getServerVersion();
  }

  /**
   * Ask a 2026-07-28 server again what it is (`server/discover`): its
   * versions, capabilities and info; `serverCapabilities` and `serverInfo`
   * then report the answer. Open already sent it once (the era probe).
   *
   * @throws McpRequestError on a 2025-era session (it has no `server/discover`; read `serverCapabilities`), or when the request fails.
   */
  async discover(): Promise<DiscoverResult> {
    const session = await this.live();
    if (session.getProtocolEra() !== "modern") {
      const why = new Error(`the session speaks ${this.protocolVersion ?? "a 2025 version"}, which has no server/discover`);
      throw new McpRequestError(
        "server/discover",
        String(this.server),
        undefined,
        why,
        "Read serverCapabilities and serverInfo (from initialize) instead",
      );
    }
    try {
      return await session.discover(this.requestOptions());
    } catch (err) {
      throw this.failure("server/discover", err);
    }
  }

  /** True between a successful `start()` and `stop()`. */
  get isOpen(): boolean {
    return this.current !== undefined;
  }

  /** The stdio server's pid (also its process group id on POSIX); undefined for HTTP. */
  get pid(): number | undefined {
    return this.transport instanceof ProcessGroupStdioTransport ? this.transport.pid : undefined;
  }

  /** The last ~4 KiB of a stdio server's stderr ("" for HTTP or `stderr: "inherit"`). */
  get stderrTail(): string {
    return stderrTail(this.transport);
  }

  /**
   * The server's tools (SDK `Tool` objects, all pages joined, frozen), cached
   * for the TTL. `forceRefresh` lists again.
   *
   * @throws McpRequestError when listing fails (the cache is then empty).
   */
  async listTools(options: ListOptions = {}): Promise<SdkTool[]> {
    void this.session; // closed: mcp_not_entered, at once
    return [...(await this.cached("tools/list", async (mode) => this.list("tools/list", await this.live(), mode), options.forceRefresh))];
  }

  /** A cached list (see list-cache.ts); every tools listing is what task results are checked against. */
  private async cached<T>(method: CachedList, load: (mode: CacheMode) => Promise<readonly T[]>, refresh?: boolean): Promise<readonly T[]> {
    const list = await this.lists.get(method, load, refresh);
    if (method === "tools/list") this.outputs.learn(list as readonly SdkTool[]);
    return list;
  }

  /**
   * The server's resources (SDK `Resource` objects, all pages joined, frozen),
   * cached for the TTL. `forceRefresh` lists again.
   *
   * @throws McpRequestError when listing fails (the cache is then empty).
   */
  async listResources(options: ListOptions = {}): Promise<Resource[]> {
    void this.session;
    return [
      ...(await this.cached("resources/list", async (mode) => this.list("resources/list", await this.live(), mode), options.forceRefresh)),
    ];
  }

  /**
   * The server's prompts (SDK `Prompt` objects, all pages joined). Never cached.
   *
   * @throws McpRequestError when listing fails.
   */
  async listPrompts(): Promise<SdkPrompt[]> {
    return [...(await this.list("prompts/list", await this.live(), "bypass"))];
  }

  /**
   * Call tool `name` and return the SDK `CallToolResult` unchanged (a tool that
   * ran and failed is a result with `isError: true`, not an exception).
   *
   * `ctx.checkCancelled()` runs before anything is sent, so a cancelled run
   * never reaches the server. Aborting `ctx.signal` (or `signal`) while the call
   * is in flight sends `notifications/cancelled`, rejects with `Cancelled`, and
   * leaves the session usable for the next call. On 2026-07-28 with the tasks
   * extension declared, an answer already on its way is waited for up to
   * 250 ms after the abort: a task in it is cancelled with `tasks/cancel`
   * (which `stop()` waits for) rather than left running with nobody knowing
   * its id; progress may still be reported in that time.
   *
   * @throws Cancelled when the run was cancelled before or during the call.
   * @throws McpRequestError when the request fails (timeout, lost connection, JSON-RPC error).
   */
  async callTool(name: string, args: Record<string, unknown> = {}, options: CallToolOptions = {}): Promise<CallToolResult> {
    const session = await this.live();
    const { ctx, signal } = options;
    ctx?.checkCancelled();
    if (signal?.aborted)
      throw new Cancelled(`MCP tools/call '${name}' on ${this.server} was not sent: its signal was already aborted`, signal.reason);
    // The SDK (2.x) removes the abort listener it adds when the call settles
    // (test/mcp-client/sdk-reach.test.ts checks it), so the run's own signal
    // is handed over as it is; only a call with two signals gets its own.
    const { call, unlink } = callSignal(ctx, signal);
    const timeout = options.timeoutMs ?? this.requestTimeoutMs;
    // A traced run (arc-agentkit/otel) sends its trace context in _meta (SEP-414).
    const traced = outgoingRequest(ctx, { method: "tools/call", server: this.label, name });
    let ok = false;
    try {
      const first = await this.firstAnswer(session, name, args, { signal: call, timeout, onprogress: options.onProgress }, traced);
      // A task (2026-07-28, the extension declared) is polled to its end under this call's span.
      const result =
        "taskId" in first
          ? await new McpTask(this.taskChannel(timeout), name, first, {
              ctx,
              signal: call,
              onProgress: options.onProgress,
              traced,
            }).result()
          : first;
      ok = result.isError !== true;
      return result;
    } finally {
      endRequest(traced, ok);
      unlink?.();
    }
  }

  /**
   * Call tool `name` and hand over the call as an `McpTask`. On 2026-07-28
   * (the tasks extension declared, see `MCPClientOptions.tasks`) a server may
   * answer with a task: its `id` and `reference` name it, and `result()`
   * polls it to its final `CallToolResult` (see `McpTask`). An answer that
   * came in the call is an `McpTask` already `completed`, whose `id` and
   * `reference` are `null`. When `ctx` is cancelled while the call is out,
   * a task in an answer already on its way is cancelled, as for `callTool()`.
   *
   * @throws Cancelled when `ctx` was cancelled before or during the call.
   * @throws McpRequestError when the request fails.
   */
  async startTool(name: string, args: Record<string, unknown> = {}, options: StartToolOptions = {}): Promise<McpTask> {
    const session = await this.live();
    const { ctx } = options;
    ctx?.checkCancelled();
    const timeout = options.timeoutMs ?? this.requestTimeoutMs;
    const traced = outgoingRequest(ctx, { method: "tools/call", server: this.label, name });
    let ok = false;
    try {
      const first = await this.firstAnswer(session, name, args, { signal: ctx?.signal, timeout }, traced);
      if (!("taskId" in first)) {
        ok = first.isError !== true;
        return new McpTask(undefined, name, first);
      }
      ok = true;
      return new McpTask(this.taskChannel(timeout), name, first, { ctx, onProgress: options.onProgress, trace: this.taskTrace(ctx, name) });
    } finally {
      endRequest(traced, ok);
    }
  }

  /**
   * The task `reference` names (an `McpTask.reference` kept from this or an
   * earlier process), as it stands now: one `tasks/get` is sent, so a task
   * the server no longer knows fails here. `result()` then polls it as
   * `startTool()`'s does.
   *
   * @throws OptionsError (option `reference`) when `reference` is not an `McpTaskReference`, or names another server.
   * @throws McpRequestError when the server does not know the task (JSON-RPC -32602) or the request fails.
   */
  async resumeTask(reference: McpTaskReference, options: StartToolOptions = {}): Promise<McpTask> {
    const ref = checkReference(reference, this.label);
    const { ctx } = options;
    ctx?.checkCancelled();
    const channel = this.taskChannel(options.timeoutMs ?? this.requestTimeoutMs);
    const now = await channel.get(ref.taskId, ctx?.signal);
    return new McpTask(
      channel,
      ref.tool,
      { ...now, createdAt: now.createdAt ?? ref.createdAt ?? undefined },
      { ctx, onProgress: options.onProgress, trace: this.taskTrace(ctx, ref.tool), reference: ref },
    );
  }

  /**
   * Send `tools/call` and return its answer: a checked `CallToolResult`, or
   * the task the server created (a request that declared the extension).
   */
  private async firstAnswer(
    session: Client,
    name: string,
    args: Record<string, unknown>,
    sendOptions: { signal?: AbortSignal; timeout?: number; onprogress?: (p: CallProgress) => void },
    traced: TracedCall | undefined,
  ): Promise<CallToolResult | TaskSnapshot> {
    // A call that may be answered with a task hears its caller's abort a moment later (see answer-grace.ts).
    const grace = sendOptions.signal && this.declaresTasks(session) ? graceSignal(sendOptions.signal) : undefined;
    // Progress is always asked for, and each notification restarts the
    // deadline: a server that keeps saying it is alive (a person deciding)
    // is waited for; only a silent one times out.
    const keepAlive = {
      ...sendOptions,
      signal: grace ? grace.signal : sendOptions.signal,
      onprogress: sendOptions.onprogress ?? ignoreProgress,
      resetTimeoutOnProgress: true,
    };
    const sent = session.callTool({ name, arguments: args, ...this.callMeta(session, traced) }, keepAlive) as Promise<CallToolResult>;
    const unlink = grace && this.cancelTaskOnAbort(sendOptions.signal!, session, sent, sendOptions.timeout);
    let result: CallToolResult;
    try {
      result = await sent;
    } catch (err) {
      if (sendOptions.signal?.aborted) {
        throw new Cancelled(
          `MCP tools/call '${name}' on ${this.server} was cancelled mid-call; the server was sent ` +
            `notifications/cancelled and the session stays usable`,
          sendOptions.signal.reason,
        );
      }
      if (isSessionGone(this.sdk, err)) throw await this.sessionLost(`tools/call '${name}'`, session, err);
      throw this.failure(`tools/call '${name}'`, err);
    } finally {
      grace?.release();
      unlink?.();
    }
    const handle = taskHandleOf(result);
    if (handle) noteRequest(traced, "mcp.task.status", { "mcp.task.id": handle.taskId, "mcp.task.status": handle.status });
    if (sendOptions.signal?.aborted) {
      const what = !handle
        ? "and was dropped"
        : isTerminal(handle.status)
          ? `(task ${handle.taskId}, ${handle.status})`
          : `(task ${handle.taskId}), which was sent tasks/cancel`;
      throw new Cancelled(
        `MCP tools/call '${name}' on ${this.server} was cancelled mid-call; its answer came after that ${what}`,
        sendOptions.signal.reason,
      );
    }
    return handle ?? result;
  }

  /**
   * When `signal` aborts while `sent` (a tools/call that may be answered with a task) is out, a task in its answer —
   * one already on its way (see answer-grace.ts) — is sent `tasks/cancel` on `session`; `stop()` waits for it. Returns
   * the unlink, for when `sent` settled.
   */
  private cancelTaskOnAbort(signal: AbortSignal, session: Client, sent: Promise<CallToolResult>, timeout: number | undefined): () => void {
    const onAbort = (): void => {
      const kept = sent
        .then((answer) => {
          const handle = taskHandleOf(answer);
          if (handle && !isTerminal(handle.status)) return this.taskChannel(timeout, session).cancel(handle.taskId);
        })
        .catch(ignoreRejection("tasks/cancel of an MCP task whose call was cancelled as its answer arrived"));
      this.cancels.add(kept);
      void kept.finally(() => this.cancels.delete(kept));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    return () => signal.removeEventListener("abort", onAbort);
  }

  /** A tools/call's `_meta`: the trace context, and on 2026-07-28 the tasks extension (unless opened with `tasks: false`). */
  private callMeta(session: Client, traced: TracedCall | undefined): { _meta?: Record<string, unknown> } {
    const trace = traceMeta(traced)._meta;
    const declared = this.declaresTasks(session) ? declareTasks(sessionCapabilities(this.recipe)) : undefined;
    return trace || declared ? { _meta: { ...declared, ...trace } } : {};
  }

  private declaresTasks(session: Client): boolean {
    return this.recipe.tasks && session.getProtocolEra() === "modern";
  }

  /** Opens the span a task's `result()` is traced under (`tasks/get <tool>`). */
  private taskTrace(ctx: RunContext | undefined, name: string): () => TracedCall | undefined {
    return () => outgoingRequest(ctx, { method: "tasks/get", server: this.label, name });
  }

  /** What an `McpTask` of this client sends through (see task-channel.ts); its `tasks/cancel` requests in flight are kept for `stop()`. */
  private taskChannel(timeout: number | undefined, session?: Client): TaskChannel {
    const channel = taskChannel({
      server: this.label,
      // A cancel sent for a call in flight goes on that call's session, which stop() keeps open for it.
      live: session ? () => Promise.resolve(session) : () => this.live(),
      declaration: () => declareTasks(sessionCapabilities(this.recipe)),
      timeout,
      answers: this.answers,
      outputs: this.outputs,
      failure: (request, err) => this.failure(request, err),
    });
    const cancel = (taskId: string): Promise<void> => {
      const sent = channel.cancel(taskId);
      const kept = sent.catch(() => {}); // its failure is the caller's (McpTask), not stop()'s
      this.cancels.add(kept);
      void kept.finally(() => this.cancels.delete(kept));
      return sent;
    };
    return { ...channel, cancel };
  }

  /**
   * Read resource `uri` and return its text (text contents joined with `\n`;
   * binary blobs are dropped).
   *
   * @throws McpRequestError when the read fails.
   */
  async readResource(uri: string): Promise<string> {
    const session = await this.live();
    try {
      return resourceText(await session.readResource({ uri }, this.requestOptions()));
    } catch (err) {
      throw this.failure(`resources/read '${uri}'`, err);
    }
  }

  /**
   * Render prompt `name` with `args` and return its text (each message's text
   * joined with `\n`; non-text content as `[<type> content omitted]`).
   *
   * @throws McpRequestError when the prompt is unknown or its arguments are refused.
   */
  async getPrompt(name: string, args: Record<string, string> = {}): Promise<string> {
    const session = await this.live();
    try {
      return promptText(await session.getPrompt({ name, arguments: args }, this.requestOptions()));
    } catch (err) {
      throw this.failure(`prompts/get '${name}'`, err);
    }
  }

  /**
   * The server's skills (the MCP Skills extension): each one's name,
   * description, `SKILL.md` URI and files, all pages joined, in the
   * server's order. Listed through the SDK's `SkillsClient`, which refuses
   * an invalid entry. Never cached. A server that does not declare the
   * extension: `[]`, and nothing is sent.
   *
   * @throws McpRequestError when listing fails.
   */
  async listSkills(): Promise<McpSkillEntry[]> {
    return (await this.skillListing()).skills.map(skillEntry);
  }

  /**
   * Skill `name` read: its entry, its `SKILL.md` instructions (checked
   * against the listed size and sha256 digest, and its frontmatter against
   * the listing) and `read(path)` for its other files, checked the same way
   * when read.
   *
   * @throws OptionsError (option `name`) when the server lists no skill of that name, naming the ones it does;
   *   McpRequestError when listing or the read fails, or the file does not match its digest.
   */
  async readSkill(name: string): Promise<McpSkill> {
    const { reader, skills } = await this.skillListing();
    const skill = skills.find((s) => s.frontmatter.name === name);
    if (!skill) {
      throw new OptionsError(
        "MCPClient.readSkill",
        "name",
        `MCPClient.readSkill: ${this.server} lists no skill named ${JSON.stringify(name)}; its skills: ` +
          `${pyList(skills.map((s) => s.frontmatter.name))}`,
      );
    }
    const manifest = await this.readSkillFile(reader, skill, undefined);
    return Object.freeze({
      ...skillEntry(skill),
      instructions: manifest.body ?? manifest.text ?? "",
      read: async (path: string) => {
        const file = await this.readSkillFile(reader, skill, path);
        return file.text ?? file.bytes;
      },
    });
  }

  private async skillListing(): Promise<{ reader: SkillsClient; skills: Skill[] }> {
    const session = await this.live();
    const reader = new (await clientSkills()).SkillsClient(session);
    try {
      return { reader, skills: (await reader.list(undefined, this.requestOptions())).skills };
    } catch (err) {
      throw this.failure("skills/list", err);
    }
  }

  private async readSkillFile(reader: SkillsClient, skill: Skill, path: string | undefined): ReturnType<SkillsClient["read"]> {
    try {
      return await reader.read(skill, path, this.requestOptions());
    } catch (err) {
      throw this.failure(`resources/read '${path ?? "SKILL.md"}' of skill '${skill.frontmatter.name}'`, err);
    }
  }

  /**
   * The whole text of a result an adapter cut (the id its cut line names).
   * The client keeps the last 64.
   *
   * @throws OptionsError (option `id`) for an id it does not keep, naming it and the ids it keeps.
   */
  spilledResult(id: string): string {
    return this.spills.get(id, "MCPClient.spilledResult");
  }

  /**
   * @internal `text` within `budget` (default this client's `maxResultChars`):
   * as it is when it fits, else cut and its whole kept (see `spilledResult`).
   */
  budgeted(text: string, budget = this.maxResultChars): { text: string; total: number; cut: number; id?: string } {
    if (budget === undefined || text.length <= budget) return { text, total: text.length, cut: 0 };
    const id = this.spills.put(text);
    return { ...cutText(text, budget, id), id };
  }

  /** The roots `roots/list` answers (frozen). */
  get roots(): readonly Root[] {
    return this.answers.roots;
  }

  /**
   * Replace the roots and tell the server (`notifications/roots/list_changed`).
   * Only for a client opened with `ctx` or `roots` (the roots capability).
   *
   * @throws OptionsError (option `roots`) when a root has no `file://` uri, or the client was opened without roots (no roots capability).
   */
  async setRoots(roots: readonly Root[]): Promise<void> {
    const session = this.session;
    if (!this.answering) {
      throw new OptionsError(
        "MCPClient.setRoots",
        "roots",
        `MCPClient.setRoots: ${this.server} was opened without roots; pass ctx or roots to MCPClient.start()`,
      );
    }
    this.answers.roots = checkRoots(roots, "MCPClient.setRoots");
    await session.sendRootsListChanged();
  }

  /**
   * Close the session and the transport, and drop both caches. For stdio the
   * server's whole process group is ended (stdin closed, then SIGTERM, then
   * SIGKILL, 2 s apart); for HTTP the session is ended (DELETE) and every
   * request is settled; for an in-memory server (`connectModule`) the module
   * is stopped. Idempotent; concurrent callers share one teardown.
   */
  stop(): Promise<void> {
    if (!this.closing) {
      const session = this.current;
      this.current = undefined;
      this.move("close");
      this.wake?.();
      this.closing = (async () => {
        try {
          // Swallow kept: waiting for a renewal to settle; its failure is the client state, reported on the next call.
          await this.renewing?.catch(() => {});
          this.lists.stop();
          // An aborted call's tasks/cancel in flight reaches the server before the session ends (at most CANCEL_GRACE_MS).
          await settledWithin([...this.cancels], CANCEL_GRACE_MS);
          await session?.close();
        } finally {
          try {
            await this.transport.close();
            await Promise.allSettled([...this.retired]);
          } finally {
            // An in-memory server lives as long as its one client (connectModule).
            if (this.server instanceof InMemoryServer) await this.server.stop();
            this.move("closed");
          }
        }
      })();
    }
    return this.closing;
  }

  /** `await using` support: the same as `stop()`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  /** The session to send on: after a respawn or re-initialization under way, the new one. */
  private async live(): Promise<Client> {
    const session = this.session;
    if (!this.renewing) return session;
    // Swallow kept: waiting for a renewal to settle before sending; a failed renewal is the client's state
    // (`renew-failed`), which this call then meets.
    await this.renewing.catch(() => {});
    return this.session;
  }

  /** The client SDK this client was opened with. */
  private get sdk(): ClientSdk {
    return this.recipe.sdk;
  }

  /** Replace `from` with a new session (once, shared by everyone who saw `from` fail). */
  private reinitialize(from: Client): Promise<void> {
    if (this.current !== from) return this.renewing ?? Promise.resolve();
    return this.renew(() => this.replaceSession());
  }

  /** A tools/call hit a lost session: re-initialize (so the client is usable), then report it; the call is not retried. */
  private async sessionLost(request: string, session: Client, err: unknown): Promise<McpRequestError> {
    try {
      await this.reinitialize(session);
      return sessionLostError(
        request,
        String(this.server),
        err,
        true,
        "the server lost the session (HTTP 404). The call was not retried: it may have run and had side effects. The client has a new session; call again if that is safe",
      );
    } catch (again) {
      return sessionLostError(
        request,
        String(this.server),
        err,
        false,
        `the server lost the session (HTTP 404); the call was not retried, and re-initializing failed: ${(again as Error).message}`,
      );
    }
  }

  /** Connect a new session and put it in place of the current one; the old one is closed in the background (awaited by stop()). */
  private async replaceSession(): Promise<void> {
    const { session, transport } = await connectSession(this.recipe);
    if (!isUsable(this.state) || !this.current) {
      await session.close().catch(ignoreRejection("closing a session that failed to open; the open error is thrown"));
      await transport.close().catch(ignoreRejection("closing a transport that failed to open; the open error is thrown"));
      return;
    }
    const old = this.current;
    const oldTransport = this.transport;
    this.current = session;
    this.transport = transport;
    this.move("renewed");
    this.watch(session);
    const retired = (async () => {
      await old.close().catch(ignoreRejection("closing the replaced session"));
      await oldTransport.close().catch(ignoreRejection("closing the replaced transport"));
    })();
    this.retired.add(retired);
    void retired.finally(() => this.retired.delete(retired));
  }

  /** The stdio server died: spawn it again under the restart policy, re-list its tools, and report each attempt on ctx. */
  private async respawn(): Promise<void> {
    const policy = this.restartPolicy!;
    const reason = exitNote(this.transport) ?? "the connection closed";
    const server = String(this.server);
    while (this.restarts < policy.maxRestarts && isUsable(this.state)) {
      const attempt = ++this.restarts;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, policy.backoffMs * 2 ** (attempt - 1));
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
      if (!isUsable(this.state)) return;
      try {
        await this.replaceSession();
        const tools = await this.cached("tools/list", (mode) => this.list("tools/list", this.session, mode), true);
        this.ctx?.emit("mcp.restart", { server, attempt, maxRestarts: policy.maxRestarts, reason, ok: true, tools: tools.length });
        return;
      } catch (err) {
        this.ctx?.emit("mcp.restart", {
          server,
          attempt,
          maxRestarts: policy.maxRestarts,
          reason,
          ok: false,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
  }

  private requestOptions(): { timeout?: number } {
    return this.requestTimeoutMs !== undefined ? { timeout: this.requestTimeoutMs } : {};
  }

  /**
   * Every page of a list, as the SDK walks and caches it (frozen); a server
   * that declared no such capability is not asked (the SDK's empty answer).
   * A list is idempotent: when the server answers 404 for the session, the
   * client re-initializes once and lists again.
   */
  private async list<M extends keyof typeof LISTS>(
    method: M,
    session: Client,
    cacheMode: CacheMode,
  ): Promise<ReturnType<(typeof LISTS)[M]["items"]>> {
    const { capability, items } = LISTS[method];
    const once = async (s: Client) => {
      if (!s.getServerCapabilities()?.[capability]) return [];
      const options = { ...this.requestOptions(), cacheMode };
      const r =
        method === "tools/list"
          ? await s.listTools(undefined, options)
          : method === "resources/list"
            ? await s.listResources(undefined, options)
            : await s.listPrompts(undefined, options);
      return deepFreeze((items as (r: unknown) => unknown[])(r));
    };
    try {
      try {
        return (await once(session)) as ReturnType<(typeof LISTS)[M]["items"]>;
      } catch (err) {
        if (!isSessionGone(this.sdk, err)) throw err;
        try {
          await this.reinitialize(session);
        } catch (again) {
          throw sessionLostError(
            method,
            String(this.server),
            err,
            false,
            `the server lost the session (HTTP 404) and re-initializing failed: ${(again as Error).message}`,
          );
        }
        try {
          return (await once(this.session)) as ReturnType<(typeof LISTS)[M]["items"]>;
        } catch (retry) {
          if (!isSessionGone(this.sdk, retry)) throw retry;
          throw sessionLostError(
            method,
            String(this.server),
            retry,
            false,
            "the server lost the session (HTTP 404) again right after re-initializing; not retried a second time",
          );
        }
      }
    } catch (err) {
      throw this.failure(method, err);
    }
  }

  private failure(request: string, err: unknown): Error {
    if (err instanceof AgentkitError) return err;
    const rpcCode = err instanceof this.sdk.ProtocolError ? err.code : undefined;
    let hint = "";
    if (!isUsable(this.state)) hint = "The client was closed while the request was in flight";
    // lost, or being respawned after the process died (HTTP re-initialization is not a lost connection)
    else if (this.state === "lost" || (this.state === "renewing" && exitNote(this.transport) !== undefined)) {
      const exit = exitNote(this.transport);
      const tail = stderrTail(this.transport);
      const next =
        this.restartPolicy && this.restarts < this.restartPolicy.maxRestarts
          ? "it is being restarted (restart option): call again"
          : "open a new MCPClient";
      hint = `The connection is gone${exit ? ` (${exit})` : ""}; ${next}${tail ? `. The server's stderr ended with:\n${tail}` : ""}`;
    }
    return new McpRequestError(request, String(this.server), rpcCode, err, hint);
  }
}

// A config made by another copy of this package (a second install, src next
// to dist) is not an instance of these classes; rebuild it by its `kind`,
// which re-validates every field.
function normalise(server: McpServerConfig): McpServerConfig {
  if (server instanceof StdioServer || server instanceof StreamableHttpServer || server instanceof InMemoryServer) return server;
  const { kind, ...fields } = (server ?? {}) as { kind?: unknown };
  if (kind === "stdio") return new StdioServer(fields as StdioServer);
  if (kind === "http") return new StreamableHttpServer(fields as StreamableHttpServer);
  throw new OptionsError("MCPClient.start", "server", "MCPClient.start: server must be a StdioServer or a StreamableHttpServer");
}

/**
 * The signal a call hands the SDK: the run's or the caller's as it is, or,
 * with both, a controller of its own aborted by either (linked by a run
 * `onCancel` hook and one listener, both removed by `unlink` when the call
 * settles).
 */
function callSignal(ctx: RunContext | undefined, given: AbortSignal | undefined): { call?: AbortSignal; unlink?: () => void } {
  if (!ctx || !given) return { call: ctx?.signal ?? given };
  const own = new AbortController();
  const offRun = ctx.onCancel((reason) => own.abort(reason));
  const fromGiven = (): void => own.abort(given.reason);
  given.addEventListener("abort", fromGiven, { once: true });
  return {
    call: own.signal,
    unlink: () => {
      offRun();
      given.removeEventListener("abort", fromGiven);
    },
  };
}
