/**
 * @module express/mcp-router
 * `mcpRouter(target, options)`: skeleton (the behaviour follows).
 */
import type { Router } from "express";
import type { RunContext } from "../context/run-context.js";
import type { ToolLike, ToolRegistry } from "../tools/tool-registry.js";
import type { ModuleClass } from "../mcp/di/bootstrap-options.js";
import { NotImplementedError } from "../errors/not-implemented.error.js";
import type { HostedCaller, McpRouterOptions } from "./router-options.js";

/** What `mcpRouter` serves: an `@McpServer` module class, tools, or a `ToolRegistry`. */
export type McpRouterTarget = ModuleClass | readonly ToolLike[] | ToolRegistry;

/** An express `Router` (mount it with `app.use(path, router)`) with its lifecycle. */
export interface McpRouter extends Router {
  /** Resolves once the module is built (its remotes connected); rejects with the `BootstrapError`. Requests wait for it. */
  readonly ready: Promise<void>;
  /** The absolute URL of the RFC 9728 document, named in every 401's `WWW-Authenticate`. */
  readonly resourceMetadataUrl: string;
  /** End the calls in flight and stop the module (remote clients closed). Idempotent. */
  close(): Promise<void>;
}

/** Serve `target` on the user's express app (see the module note). */
export function mcpRouter(target: McpRouterTarget, options: McpRouterOptions): McpRouter {
  void target;
  void options;
  throw new NotImplementedError("mcpRouter(): not built yet (skeleton)", "mcpRouter");
}

/** The hosted caller of `ctx` (set by `mcpRouter` on each call's context), or `undefined` outside a hosted call. */
export function hostedCaller(ctx: RunContext): HostedCaller | undefined {
  const c = ctx.caller as Partial<HostedCaller>;
  return typeof c.clientId === "string" && Array.isArray(c.scopes) ? (c as HostedCaller) : undefined;
}
