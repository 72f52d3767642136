/**
 * @module mcp/client/mcp-client
 * `MCPClient`: one connection to one MCP server — transport and session opened
 * in one step, closed in one step — with 30-second list caches.
 */
import { OptionsError } from "../../errors/options.error.js";
import { createRequire } from "node:module";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, Prompt as SdkPrompt, Resource, Root, Tool as SdkTool } from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { ToolOutputChecks } from "./tool-output.js";
import type { RunContext } from "../../context/run-context.js";
import { AgentkitError } from "../../errors/agentkit.error.js";
import { Cancelled } from "../../errors/cancelled.error.js";
import { deepFreeze } from "../../util/format.js";
import { getLogger } from "../../util/logger.js";
import { sdkAjv, sdkClient, sdkHttpClient, sdkTypes } from "../sdk.js";
import { CallSignal } from "../sdk-reach.js";
import { promptText, resourceText } from "./content.js";
import { StreamableHttpTransport } from "./http-transport.js";
import { McpConnectError } from "./mcp-connect.error.js";
import { OAuthCallbackError, OAuthLoginRequiredError } from "../oauth/oauth.error.js";
import { McpNotEnteredError } from "./mcp-not-entered.error.js";
import { McpRequestError } from "./mcp-request.error.js";
import { checkRoots, runCapabilities, ServerRequests } from "./server-requests.js";
import { StdioServer, StreamableHttpServer, type McpServerConfig } from "./servers.js";
import { ProcessGroupStdioTransport } from "./stdio-transport.js";
import { TtlCache } from "./ttl-cache.js";

/** How long `listTools()` / `listResources()` results are served from cache: 30 s (`{ forceRefresh: true }` skips it). */
export const DEFAULT_TTL_MS = 30_000;

/** More pages than this in one list is taken as a server bug. */
const MAX_PAGES = 10_000;

const pkg = createRequire(import.meta.url)("../../../package.json") as { name: string; version: string };

/** Options of `MCPClient.open()`. */
export interface MCPClientOptions {
  /** `clientInfo` sent in `initialize`. Default `{ name: "arc-agentkit", version: <package version> }`. */
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /** TTL of the tools and resources list caches, in ms. Default `DEFAULT_TTL_MS` (30 000). */
  readonly ttlMs?: number;
  /**
   * Default timeout of every request (initialize included), in ms. Default:
   * the server's `timeoutMs` for HTTP; the SDK's 60 000 for stdio.
   */
  readonly requestTimeoutMs?: number;
  /** Aborts `open()` itself (spawn + initialize); what was opened is closed. */
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
  /** This call's timeout in ms (overrides the client's default). */
  readonly timeoutMs?: number;
}

type Page<T> = { readonly items: readonly T[]; readonly nextCursor?: string };

/**
 * One connection to one MCP server. Open with `MCPClient.open(server)` — it
 * spawns the subprocess (or opens the HTTP transport) and initializes the
 * session in one step, and if any part fails it closes what was already opened
 * before throwing `McpConnectError`. Use `await using c = await MCPClient.open(...)`
 * or call `close()`; closing drops the session and both caches.
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
  private current?: Client;
  private readonly transport: Transport;
  private readonly requestTimeoutMs?: number;
  private readonly tools: TtlCache<readonly SdkTool[]>;
  private readonly resources: TtlCache<readonly Resource[]>;
  private readonly outputs: ToolOutputChecks;
  private closing?: Promise<void>;
  private lost = false;
  private readonly answers: ServerRequests;
  /** Opened with `ctx` or `roots`: the client declared elicitation, sampling and roots. */
  private readonly answering: boolean;

  private constructor(server: McpServerConfig, session: Client, transport: Transport, validator: jsonSchemaValidator, options: MCPClientOptions, answers: ServerRequests) {
    this.server = server;
    this.answers = answers;
    this.answering = options.ctx !== undefined || options.roots !== undefined;
    this.outputs = new ToolOutputChecks(validator);
    this.current = session;
    this.transport = transport;
    this.requestTimeoutMs = requestTimeout(server, options);
    const ttl = options.ttlMs ?? DEFAULT_TTL_MS;
    this.tools = new TtlCache(ttl);
    this.resources = new TtlCache(ttl);
    session.onclose = () => {
      // The server went away: its lists describe nothing we can call any more.
      this.lost = true;
      this.tools.clear();
      this.resources.clear();
    };
  }

  /**
   * Open a connection to `server`: spawn or connect, then `initialize`.
   *
   * @throws McpConnectError when the server cannot be started or reached, or
   *   initialize fails (for stdio the message ends with the server's stderr
   *   tail); nothing opened is left behind.
   * @throws TypeError when `server` is not a `StdioServer` or `StreamableHttpServer`.
   * @throws OAuthLoginRequiredError when the server's stored OAuth login was refused (log in again).
   * @throws OAuthCallbackError when an OAuth authorization came back refused or never came back.
   */
  static async open(config: McpServerConfig, options: MCPClientOptions = {}): Promise<MCPClient> {
    const server = normalise(config);
    if (options.ttlMs !== undefined && !(Number.isFinite(options.ttlMs) && options.ttlMs >= 0)) {
      throw new OptionsError("MCPClient.open", "ttlMs", `MCPClient.open: ttlMs must be a non-negative number of milliseconds, got ${options.ttlMs}`);
    }
    const transport = server instanceof StdioServer ? new ProcessGroupStdioTransport(server) : new StreamableHttpTransport(server);
    // One validator provider, shared with the session (whose own output checks
    // see no listed tools: see listTools()).
    const validator = new sdkAjv.AjvJsonSchemaValidator();
    const answering = options.ctx !== undefined || options.roots !== undefined;
    const answers = new ServerRequests(String(server), options.ctx, checkRoots(options.roots, "MCPClient.open"));
    const session = new sdkClient.Client(options.clientInfo ?? { name: pkg.name, version: pkg.version }, { capabilities: answering ? runCapabilities() : {}, jsonSchemaValidator: validator });
    if (answering) answers.install(session);
    session.onerror = (err) => getLogger().debug(`MCPClient ${server}: ${err.message}`);
    try {
      options.signal?.throwIfAborted();
      await session.connect(transport, { signal: options.signal, timeout: requestTimeout(server, options) });
    } catch (err) {
      const detail = exitNote(transport) ?? httpStatusNote(err); // before close(): our own SIGTERM is not the story
      await session.close().catch(() => {});
      await transport.close().catch(() => {});
      // A login that has to be redone is the whole story: its message names the command.
      if (err instanceof OAuthLoginRequiredError || err instanceof OAuthCallbackError) throw err;
      throw new McpConnectError(String(server), stderrTail(transport), err, detail);
    }
    return new MCPClient(server, session, transport, validator, options, answers);
  }

  /**
   * The live SDK `Client`.
   *
   * @throws McpNotEnteredError (`MCPClient not entered — use await using c = await MCPClient.open(...)`) after `close()`.
   */
  get session(): Client {
    if (!this.current) throw new McpNotEnteredError();
    return this.current;
  }

  /** True between a successful `open()` and `close()`. */
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
    const session = this.session;
    const tools = await this.tools.get(async () => {
      // Listed with the plain request, not session.listTools(): that one keeps
      // output-schema validators for the last page only (SDK 1.32.2), so the
      // checks are ours, made from every page (see tool-output.ts).
      const all = await this.listAll("tools/list", async (cursor) => {
        const r = await session.request({ method: "tools/list", params: cursor === undefined ? undefined : { cursor } }, sdkTypes.ListToolsResultSchema, this.requestOptions());
        return { items: r.tools, nextCursor: r.nextCursor };
      });
      this.outputs.learn(all);
      return all;
    }, options.forceRefresh);
    return [...tools];
  }

  /**
   * The server's resources (SDK `Resource` objects, all pages joined, frozen),
   * cached for the TTL. `forceRefresh` lists again.
   *
   * @throws McpRequestError when listing fails (the cache is then empty).
   */
  async listResources(options: ListOptions = {}): Promise<Resource[]> {
    const session = this.session;
    const resources = await this.resources.get(
      () =>
        this.listAll("resources/list", async (cursor) => {
          const r = await session.listResources(cursor === undefined ? undefined : { cursor }, this.requestOptions());
          return { items: r.resources, nextCursor: r.nextCursor };
        }),
      options.forceRefresh,
    );
    return [...resources];
  }

  /**
   * The server's prompts (SDK `Prompt` objects, all pages joined). Never cached.
   *
   * @throws McpRequestError when listing fails.
   */
  async listPrompts(): Promise<SdkPrompt[]> {
    const session = this.session;
    return [
      ...(await this.listAll("prompts/list", async (cursor) => {
        const r = await session.listPrompts(cursor === undefined ? undefined : { cursor }, this.requestOptions());
        return { items: r.prompts, nextCursor: r.nextCursor };
      })),
    ];
  }

  /**
   * Call tool `name` and return the SDK `CallToolResult` unchanged (a tool that
   * ran and failed is a result with `isError: true`, not an exception).
   *
   * `ctx.checkCancelled()` runs before anything is sent, so a cancelled run
   * never reaches the server. Aborting `ctx.signal` (or `signal`) while the call
   * is in flight sends `notifications/cancelled`, rejects with `Cancelled`, and
   * leaves the session usable for the next call.
   *
   * @throws Cancelled when the run was cancelled before or during the call.
   * @throws McpRequestError when the request fails (timeout, lost connection, JSON-RPC error).
   */
  async callTool(name: string, args: Record<string, unknown> = {}, options: CallToolOptions = {}): Promise<CallToolResult> {
    const session = this.session;
    const { ctx, signal } = options;
    ctx?.checkCancelled();
    if (signal?.aborted) throw new Cancelled(`MCP tools/call '${name}' on ${this.server} was not sent: its signal was already aborted`, signal.reason);
    // A fresh handle per call, linked to the run (and the caller's signal) by
    // callbacks removed when the call settles: the SDK adds an abort listener
    // to the signal it is given and never removes it, so the run's own signal
    // would collect one per call (see sdk-reach.ts for why not an AbortController).
    const call = ctx || signal ? new CallSignal() : undefined;
    const offCtx = ctx?.onCancel((reason) => call!.abort(reason));
    let offSignal: (() => void) | undefined;
    if (signal) {
      const onAbort = (): void => call!.abort(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      offSignal = () => signal.removeEventListener("abort", onAbort);
    }
    const timeout = options.timeoutMs ?? this.requestTimeoutMs;
    try {
      this.outputs.checkCall(name);
      const result = (await session.callTool({ name, arguments: args }, undefined, { signal: call?.asSignal(), timeout })) as CallToolResult;
      this.outputs.checkResult(name, result);
      return result;
    } catch (err) {
      if (call?.aborted) {
        throw new Cancelled(
          `MCP tools/call '${name}' on ${this.server} was cancelled mid-call; the server was sent notifications/cancelled and the session stays usable`,
          call.reason,
        );
      }
      throw this.failure(`tools/call '${name}'`, err);
    } finally {
      offCtx?.();
      offSignal?.();
    }
  }

  /**
   * Read resource `uri` and return its text (text contents joined with `\n`;
   * binary blobs are dropped).
   *
   * @throws McpRequestError when the read fails.
   */
  async readResource(uri: string): Promise<string> {
    const session = this.session;
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
    const session = this.session;
    try {
      return promptText(await session.getPrompt({ name, arguments: args }, this.requestOptions()));
    } catch (err) {
      throw this.failure(`prompts/get '${name}'`, err);
    }
  }

  /** The roots `roots/list` answers (frozen). */
  get roots(): readonly Root[] {
    return this.answers.roots;
  }

  /**
   * Replace the roots and tell the server (`notifications/roots/list_changed`).
   * Only for a client opened with `ctx` or `roots` (the roots capability).
   *
   * @throws TypeError when a root has no `file://` uri, or the client declared no roots capability.
   */
  async setRoots(roots: readonly Root[]): Promise<void> {
    const session = this.session;
    if (!this.answering) {
      throw new TypeError(`MCPClient.setRoots: ${this.server} was opened without roots; pass ctx or roots to MCPClient.open()`);
    }
    this.answers.roots = checkRoots(roots, "MCPClient.setRoots");
    await session.sendRootsListChanged();
  }

  /**
   * Close the session and the transport, and drop both caches. For stdio the
   * server's whole process group is ended (stdin closed, then SIGTERM, then
   * SIGKILL, 2 s apart); for HTTP the session is ended (DELETE) and every
   * request is settled. Idempotent; concurrent callers share one teardown.
   */
  close(): Promise<void> {
    if (!this.closing) {
      const session = this.current;
      this.current = undefined;
      this.tools.clear();
      this.resources.clear();
      this.closing = (async () => {
        try {
          await session?.close();
        } finally {
          await this.transport.close();
        }
      })();
    }
    return this.closing;
  }

  /** `await using` support: the same as `close()`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private requestOptions(): { timeout?: number } {
    return this.requestTimeoutMs !== undefined ? { timeout: this.requestTimeoutMs } : {};
  }

  private async listAll<T>(method: string, page: (cursor: string | undefined) => Promise<Page<T>>): Promise<readonly T[]> {
    const items: T[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    try {
      for (let n = 0; ; n++) {
        const p = await page(cursor);
        items.push(...p.items);
        cursor = p.nextCursor;
        if (cursor === undefined) break;
        if (seen.has(cursor) || n >= MAX_PAGES) throw new Error(`the server repeated cursor ${JSON.stringify(cursor)} (or sent over ${MAX_PAGES} pages)`);
        seen.add(cursor);
      }
    } catch (err) {
      throw this.failure(method, err);
    }
    return deepFreeze(items);
  }

  private failure(request: string, err: unknown): Error {
    if (err instanceof AgentkitError) return err;
    const rpcCode = err instanceof sdkTypes.McpError ? err.code : undefined;
    let hint = "";
    if (!this.current) hint = "The client was closed while the request was in flight";
    else if (this.lost) {
      const exit = exitNote(this.transport);
      const tail = stderrTail(this.transport);
      hint = `The connection is gone${exit ? ` (${exit})` : ""}; open a new MCPClient${tail ? `. The server's stderr ended with:\n${tail}` : ""}`;
    }
    return new McpRequestError(request, String(this.server), rpcCode, err, hint);
  }
}

// A config made by another copy of this package (a second install, src next
// to dist) is not an instance of these classes; rebuild it by its `kind`,
// which re-validates every field.
function normalise(server: McpServerConfig): McpServerConfig {
  if (server instanceof StdioServer || server instanceof StreamableHttpServer) return server;
  const kind = (server as { kind?: unknown } | null)?.kind;
  if (kind === "stdio") return new StdioServer(server as StdioServer);
  if (kind === "http") return new StreamableHttpServer(server as StreamableHttpServer);
  throw new OptionsError("MCPClient.open", "server", "MCPClient.open: server must be a StdioServer or a StreamableHttpServer");
}

function requestTimeout(server: McpServerConfig, options: MCPClientOptions): number | undefined {
  return options.requestTimeoutMs ?? (server instanceof StreamableHttpServer ? server.timeoutMs : undefined);
}

function stderrTail(transport: Transport): string {
  return transport instanceof ProcessGroupStdioTransport ? transport.stderrTail.text() : "";
}

function httpStatusNote(err: unknown): string | undefined {
  if (!(err instanceof sdkHttpClient.StreamableHTTPError) || typeof err.code !== "number" || err.code < 100) return undefined;
  return err.code === 401 || err.code === 403 ? `HTTP ${err.code}: check the Authorization header` : `HTTP ${err.code}`;
}

function exitNote(transport: Transport): string | undefined {
  if (!(transport instanceof ProcessGroupStdioTransport)) return undefined;
  const s = transport.exitStatus;
  if (!s) return undefined;
  return s.signal ? `the server process was killed by ${s.signal}` : `the server process exited with code ${s.code}`;
}
