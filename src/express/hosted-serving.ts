/**
 * @module express/hosted-serving
 * What a hosted router serves with: the module's (or the tools') catalog,
 * the SDK v2's per-request handler (`createMcpHandler`, `legacy:
 * "stateless"`: 2026-07-28 natively and 2025-era clients without sessions)
 * and, per caller, a server whose `tools/list` holds only the tools the
 * token's scopes cover. Every call's context carries the caller; questions
 * a tool asks go through the fleet-signed replay state.
 */
import type { AuthInfo, McpHttpHandler } from "@modelcontextprotocol/server";
import type { RunContext } from "../context/run-context.js";
import type { Tool } from "../tools/tool.js";
import { sdkServer, type SdkServer } from "../mcp/serve/sdk-server.js";
import { buildCatalog, type ServedCatalog } from "../mcp/serve/served-catalog.js";
import { newCallCounter, servedServerFactory, stopInflight, type CallCounter, type ServedServerOptions, type ToolGuard } from "../mcp/serve/served-server.js";
import type { ServedExtras } from "../mcp/serve/served-extras.js";
import { ReplayKey } from "../mcp/serve/replay-rounds.js";
import type { CheckedRouterOptions } from "./router-options.js";
import { callerOfAuth, scopesCover } from "./resource-server.js";

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
}

/** Distinct per-scope catalogs kept at most; past it a caller's server is built without the cache. */
const MAX_VIEWS = 64;

/** One router's serving (see the module note). */
export class HostedServing {
  /** Every served tool, by wire name (the scope check reads it). */
  readonly byName: ReadonlyMap<string, Tool>;
  /** The union of the tools' declared scopes, sorted. */
  readonly toolScopes: readonly string[];
  readonly handler: McpHttpHandler;
  private readonly catalog: ServedCatalog;
  private readonly views = new Map<string, () => SdkServer>();
  private readonly counter: CallCounter = newCallCounter();
  private readonly served: ServedServerOptions;

  constructor(
    private readonly parts: HostedParts,
    options: CheckedRouterOptions,
    onerror: (error: Error) => void,
  ) {
    this.catalog = buildCatalog(parts.tools, parts.name);
    this.byName = new Map(this.catalog.tools.map((s) => [s.name, s.tool]));
    this.toolScopes = [...new Set(this.catalog.tools.flatMap((s) => [...(s.tool.scopes ?? [])]))].sort();
    const replay = new ReplayKey(options.fleetKey, options.stateTtlMs, (extra) => principal(extra.http?.authInfo));
    this.served = {
      ctx: parts.ctx,
      timeoutMs: options.timeoutMs,
      extras: parts.extras,
      replay,
      callerOf: (extra) => callerOfAuth(extra.http?.authInfo) as Readonly<Record<string, unknown>> | undefined,
      ...(parts.guard ? { guard: parts.guard } : {}),
    };
    this.handler = sdkServer().createMcpHandler((rc) => this.serverFor(rc.authInfo), { legacy: "stateless", maxRequestBodySize: options.maxBodyBytes, onerror });
  }

  /** A fresh server for one request, listing only the tools the caller's scopes cover. */
  serverFor(auth: AuthInfo | undefined): SdkServer {
    const granted = auth?.scopes ?? [];
    const visible = this.catalog.tools.filter((s) => scopesCover(s.tool, granted));
    const key = visible.map((s) => s.name).join("\0");
    let factory = this.views.get(key);
    if (!factory) {
      factory = visible.length === this.catalog.tools.length ? servedServerFactory(this.catalog, this.served, this.counter) : servedServerFactory(buildCatalog(visible.map((s) => s.tool), this.parts.name), this.served, this.counter);
      if (this.views.size < MAX_VIEWS) this.views.set(key, factory);
    }
    return factory();
  }

  /** End the calls in flight, close the handler, stop the parts. Errors of the parts are collected and thrown together. */
  async close(): Promise<void> {
    stopInflight(this.counter);
    await this.handler.close();
    const errors: unknown[] = [];
    for (const close of [...this.parts.closers].reverse()) await close().catch((err: unknown) => errors.push(err));
    if (errors.length) throw new AggregateError(errors, `mcpRouter.close(): ${errors.length} part(s) of '${this.parts.name}' failed to stop`);
  }
}

/** Who a replay state is bound to: the token's client and end user. */
function principal(auth: AuthInfo | undefined): string {
  const c = callerOfAuth(auth);
  return c ? `${c.clientId}\0${c.subject ?? ""}` : "";
}
