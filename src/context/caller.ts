/**
 * @module context/caller
 * `Caller`: who is calling a served tool, resource or prompt (`ctx.caller`),
 * one variant per way a module is served — the loopback listener, stdio, a
 * hosted router — plus a task this process took over after a restart.
 * Switch on `kind`; a run started in this process has no caller.
 */

/** What every caller of a served request says: the module and the request. */
interface ServedRequestCaller {
  /** The served module's name (the server name the client sees). */
  readonly server: string;
  /** The JSON-RPC id of the request being served (a `tools/call`, a resource read, a prompt render). */
  readonly requestId: string | number;
}

/** A client of a module served on the loopback listener (`serveRegistry`, `bootstrap`): a CLI, an `MCPClient`. */
export interface LoopbackCaller extends ServedRequestCaller {
  readonly kind: "loopback";
  /** The 2025-era session (`mcp-session-id`), or `null` on 2026-07-28, which has no sessions. */
  readonly sessionId: string | null;
}

/**
 * The client that spawned this process and speaks to it on stdin/stdout (`serveRegistryStdio`, `bootstrap(..., {
 * transport: "stdio" })`).
 */
export interface StdioCaller extends ServedRequestCaller {
  readonly kind: "stdio";
}

/** A client of a module hosted on an express app (`arc-agentkit/express`), as its OAuth access token established it. */
export interface HostedCaller extends ServedRequestCaller {
  readonly kind: "hosted";
  /** The OAuth client the token was issued to. */
  readonly clientId: string;
  /** The token's scopes. */
  readonly scopes: readonly string[];
  /** The end user, when the token names one. */
  readonly subject?: string;
  /** Token expiry, seconds since the epoch. */
  readonly expiresAt: number;
  /** The resource (audience) the token was checked against. */
  readonly resource: string;
  /** What the token verifier returned under `extra`. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/**
 * A task this process took over from the call-record store after a restart
 * (one that was waiting for approval): no client request is behind this
 * run, only the record. (The record is bound to its first caller; who that
 * was is not kept in a form that could be shown here.)
 */
export interface TaskCaller {
  readonly kind: "task";
  /** The served module's name. */
  readonly server: string;
  /** The task's id (its call record's). */
  readonly task: string;
}

/** Who is calling (`ctx.caller`): switch on `kind`. `undefined` for a run this process started itself. */
export type Caller = LoopbackCaller | StdioCaller | HostedCaller | TaskCaller;

/** The accepted values of `Caller.kind`. */
export const CALLER_KINDS: readonly Caller["kind"][] = Object.freeze(["loopback", "stdio", "hosted", "task"]);
