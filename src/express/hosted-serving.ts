/**
 * @module express/hosted-serving
 * What a hosted router serves with: the module's (or the tools') catalog,
 * the SDK v2's per-request handler (`createMcpHandler`, `legacy:
 * "stateless"`: 2026-07-28 natively and 2025-era clients without sessions)
 * and, per caller, a server whose lists hold only the tools, resources,
 * templates and prompts the token's scopes cover (`scope-fence`). Every
 * call's, read's, render's and completion's context carries the caller; a
 * question a tool asks is a record in the router's call-record store, named
 * by a fleet-signed request state, and the retry runs the tool again.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthInfo, McpHttpHandler } from "@modelcontextprotocol/server";
import type { RunContext } from "../context/run-context.js";
import type { Tool } from "../tools/tool.js";
import { sdkServer, type SdkServer } from "../mcp/peers/sdk-server.js";
import { buildCatalog, type ServedCatalog } from "../mcp/serve/served-catalog.js";
import {
  newCallCounter,
  serveResults,
  servedServerFactory,
  stopInflight,
  type CallCounter,
  type ServedServerOptions,
  type ToolGuard,
} from "../mcp/serve/served-server.js";
import type { ServedExtras } from "../mcp/serve/served-extras.js";
import { RequestStateSigner } from "../mcp/serve/request-state.js";
import { ServedTasks, type TasksOptions } from "../mcp/serve/served-tasks.js";
import { moduleBudget, type ResultsOptions } from "../mcp/serve/served-results.js";
import { NodeHttpServerTransport } from "../mcp/loopback/node-http-transport.js";
import { ignoreRejection } from "../util/logger.js";
import type { CheckedRouterOptions } from "./router-options.js";
import { hostedCallerOf, principalOf } from "./resource-server.js";
import { ScopeFence } from "./scope-fence.js";
import { ListenStreams, type ListenRefusal, type ListenSlot } from "./listen-streams.js";
import { answerTaskGet, type DirectTaskGet } from "./task-get-shortcut.js";

/** What is served: built from a module (`buildUnservedModule`) or from tools. */
export interface HostedParts {
  /** The server name (the module's `name`, or the router's `name` option). */
  readonly name: string;
  readonly tools: readonly Tool[];
  readonly extras: ServedExtras;
  /** The module's server-side approval guard, if it has one. */
  readonly guard?: ToolGuard;
  /** The context every call's context derives from. */
  readonly ctx: RunContext;
  /** Stops what the parts hold (the module's remotes), in start order. */
  readonly closers: ReadonlyArray<() => Promise<void>>;
  /** The module's own `tasks` option (the router's wins). */
  readonly tasks?: TasksOptions;
  /** The module's own `results` option (the router's wins). */
  readonly results?: ResultsOptions | false;
}

/** Distinct per-scope catalogs kept at most; past it a caller's server is built without the cache. */
const MAX_VIEWS = 64;
/** Distinct granted-scope sets (restricted to the scopes served items declare) remembered at most, each naming its catalog's factory. */
const MAX_GRANTS = 256;

/** One router's serving (see the module note). */
export class HostedServing {
  /** Which served items a token's scopes cover: what it sees listed, and which request is refused before it runs. */
  readonly fence: ScopeFence;
  readonly handler: McpHttpHandler;
  /** The open `subscriptions/listen` streams, counted per principal and router-wide. */
  private readonly listens: ListenStreams;
  private readonly catalog: ServedCatalog;
  private readonly views = new Map<string, () => SdkServer>();
  /** The factory for a token's scopes, keyed by the granted scopes any served item declares (joined): one lookup per request once seen. */
  private readonly grants = new Map<string, () => SdkServer>();
  /** The factory of the whole catalog (every tool visible). */
  private readonly full: () => SdkServer;
  /** Sessionless 2025-era exchanges still open on the node transport (closed by `stop()`). */
  private readonly oneShots = new Set<() => Promise<void>>();
  private closed = false;
  /** The server of each request the SDK's handler is answering, by its web `Request` (gone with it). */
  private readonly exchanges = new WeakMap<Request, SdkServer>();
  private readonly counter: CallCounter = newCallCounter();
  private readonly served: ServedServerOptions;

  constructor(
    private readonly parts: HostedParts,
    options: CheckedRouterOptions,
    onerror: (error: Error) => void,
  ) {
    const resultsOption = options.results ?? parts.results;
    this.catalog = buildCatalog(parts.tools, parts.name, undefined, moduleBudget(resultsOption));
    // The module's read_result tool and results resource when budgets are on: visible to every token (they read only
    // the caller's own results).
    const results = serveResults(this.catalog, parts.extras, resultsOption);
    this.fence = new ScopeFence(this.catalog, parts.extras);
    const replay = new RequestStateSigner(options.fleetKey, options.stateTtlMs, (extra) => principalOf(extra.http?.authInfo));
    const tasks = new ServedTasks(parts.name, options.tasks ?? parts.tasks);
    this.served = {
      ctx: parts.ctx,
      timeoutMs: options.timeoutMs,
      extras: parts.extras,
      replay,
      // One store for the module's waiting calls: a question's round and a task are records in the same place.
      records: tasks.store,
      callerOf: hostedCallerOf,
      ...(parts.guard ? { guard: parts.guard } : {}),
      tasks,
      ...(results ? { results } : {}),
    };
    // Tasks a dead process of this host left on the store (see served-tasks); a store that fails is reported, not thrown.
    void this.served.tasks!.recover(
      this.catalog,
      parts.ctx,
      (err) => onerror(err instanceof Error ? err : new Error(String(err))),
      parts.guard,
    );
    tasks.startSweeping();
    this.full = servedServerFactory(this.catalog, this.served, this.counter);
    this.listens = new ListenStreams(options.listen, parts.name);
    // The SDK's own cap is the router-wide one: `listens` refuses first, naming the option; the SDK's stays a backstop.
    const maxSubscriptions = options.listen.maxStreams;
    this.handler = sdkServer().createMcpHandler((rc) => this.follow(rc.requestInfo, this.serverFor(rc.authInfo)), {
      legacy: "stateless",
      maxRequestBodySize: options.maxBodyBytes,
      maxSubscriptions,
      onerror,
    });
  }

  /** A fresh server for one request, listing only the items the caller's scopes cover. */
  serverFor(auth: AuthInfo | undefined): SdkServer {
    if (!this.fence.scopes.length) return this.full();
    const granted = auth?.scopes ?? [];
    // Only the scopes some served item declares decide what is visible: the key stays bounded by the module, whatever else a token carries.
    let key = "";
    for (const s of this.fence.scopes) if (granted.includes(s)) key += `${s} `;
    let factory = this.grants.get(key);
    if (!factory) {
      factory = this.viewFor(granted);
      if (this.grants.size < MAX_GRANTS) this.grants.set(key, factory);
    }
    return factory();
  }

  /**
   * A slot for one more `subscriptions/listen` stream of `auth`'s principal
   * (its issuer, client and end user, however its token is spelled: `principalOf`), or the refusal
   * naming the cap it would pass. The slot ends the stream in time (`bound`:
   * the lifetime, or the token's expiry if sooner); release it when the
   * response is over.
   */
  listenSlot(auth: AuthInfo | undefined): ListenSlot | ListenRefusal {
    return this.listens.take(principalOf(auth));
  }

  /**
   * The client of `request` (handed to `handler.fetch`) left before its
   * answer: end the exchange as the SDK ends one whose request signal aborts
   * (its transport closes, the call in flight is cancelled). The router
   * builds its web `Request` without a signal, as undici's signal following
   * (a WeakRef, a finalizer and a listener per request) costs more than the
   * rest of the `Request`.
   */
  leave(request: Request): void {
    this.exchanges.get(request)?.close().catch(ignoreRejection("closing the server of a request whose client left"));
  }

  /**
   * Answer one sessionless 2025-era POST (`body` parsed, the token verified
   * on `req.auth`) on node:http directly: a fresh server on agentkit's own
   * Streamable HTTP transport, one request, closed when the response is —
   * as the SDK's stateless fallback answers it, without bridging the request
   * into a web `Request` and the SSE answer through web streams.
   */
  async serveLegacy(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, body: unknown): Promise<void> {
    if (this.closed) throw new Error("This MCP handler has been closed"); // as the SDK's handler answers after close()
    const transport = new NodeHttpServerTransport({ sessionIdGenerator: undefined });
    const server = this.serverFor(req.auth);
    const close = async (): Promise<void> => void (await Promise.allSettled([transport.close(), server.close()]));
    this.oneShots.add(close);
    res.once("close", () => {
      this.oneShots.delete(close);
      void close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  /**
   * Answer `get` (a `tasks/get` the SDK would serve as it is: `directTaskGet`)
   * on node:http, without a server for it; false when the SDK's path should
   * answer it instead (see `answerTaskGet`) or the router is closing.
   */
  async answerTaskGet(get: DirectTaskGet, req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse): Promise<boolean> {
    if (this.closed) return false;
    const text = await answerTaskGet(get, req.auth, this.parts.name, this.served.tasks!);
    if (text === undefined || this.closed) return false;
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
    return true;
  }

  /** Remember which server answers `request` (the SDK's factory names the request it builds for), for `leave()`. */
  private follow(request: Request | undefined, server: SdkServer): SdkServer {
    if (request) this.exchanges.set(request, server);
    return server;
  }

  /** The factory of the catalog and extras `granted` sees (built once per distinct set of visible items, up to `MAX_VIEWS`). */
  private viewFor(granted: readonly string[]): () => SdkServer {
    const view = this.fence.view(granted);
    if (!view) return this.full;
    let factory = this.views.get(view.key);
    if (!factory) {
      factory = servedServerFactory(
        buildCatalog(view.tools, this.parts.name, undefined, this.served.results?.moduleChars),
        { ...this.served, extras: view.extras },
        this.counter,
      );
      if (this.views.size < MAX_VIEWS) this.views.set(view.key, factory);
    }
    return factory;
  }

  /** End the calls in flight, close the handler, stop the parts. Errors of the parts are collected and thrown together. */
  async stop(): Promise<void> {
    this.closed = true;
    this.served.tasks!.stopSweeping();
    stopInflight(this.counter);
    await Promise.all([this.handler.close(), ...[...this.oneShots].map((close) => close())]);
    this.oneShots.clear();
    const errors: unknown[] = [];
    for (const close of [...this.parts.closers].reverse()) await close().catch((err: unknown) => errors.push(err));
    if (errors.length)
      throw new AggregateError(errors, `mcpRouter.stop(): ${errors.length} part(s) of '${this.parts.name}' failed to stop`);
  }
}
