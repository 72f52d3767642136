/**
 * @module mcp/client/connect-session
 * One transport and one initialized SDK session for a server config: what
 * `MCPClient.start()` does once, and again when a session is re-initialized
 * (HTTP 404) or a stdio server is respawned. Whatever fails is closed before
 * the error is thrown.
 */
import { createRequire } from "node:module";
import type { Client, ClientCapabilities, Transport, VersionNegotiationOptions } from "@modelcontextprotocol/client";
import { pyStr, seconds } from "../../util/format.js";
import { getLogger, ignoreRejection } from "../../util/logger.js";
import { visible } from "../../util/visible-text.js";
import type { AgentkitError } from "../../errors/agentkit.error.js";
import { OAuthLoginRequiredError, isCallbackFailure } from "../oauth/oauth.error.js";
import { httpTransport } from "./http-transport.js";
import { refuseRepeatedCursor, type ListCache } from "./list-cache.js";
import { McpConnectError } from "./mcp-connect.error.js";
import type { ClientSdk } from "../peers/sdk-client.js";
import { runCapabilities, type ServerRequests } from "./server-requests.js";
import { InMemoryServer, StdioServer, type McpServerConfig, type ProtocolChoice } from "./servers.js";
import { ProcessGroupStdioTransport } from "./stdio-transport.js";
import { watchTaskHandles } from "./task-codec.js";

const pkg = createRequire(import.meta.url)("../../../package.json") as { name: string; version: string };

/** What a session is made with (fixed for the client's life). */
export interface SessionRecipe {
  /** The client SDK, as `clientSdk()` loaded it. */
  readonly sdk: ClientSdk;
  readonly server: McpServerConfig;
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /** Answers server requests; undefined: the client declares no client capabilities. */
  readonly answers?: ServerRequests;
  readonly timeout?: number;
  /** Declare the tasks extension on 2026-07-28 tool calls (and so watch the transport for task handles). */
  readonly tasks: boolean;
  /** The client's lists: every session caches in its store and reports changes to it. */
  readonly lists: ListCache;
}

/** The client capabilities a session of `recipe` declares (the tasks extension is declared per request, not here). */
export function sessionCapabilities(recipe: SessionRecipe): ClientCapabilities {
  return recipe.answers ? runCapabilities() : {};
}

/** A connected pair. */
export interface Connected {
  readonly session: Client;
  readonly transport: Transport;
}

/**
 * Start the transport and open a session over it, in the era the server's
 * `protocol` asks for (see `ProtocolChoice`). Under `"auto"`, a stdio
 * server whose process ended during the attempt (one that exits on the
 * `server/discover` probe) is spawned once more and opened with the 2025
 * `initialize` alone.
 *
 * @throws McpConnectError when it cannot be started, reached or initialized (nothing is left open).
 * @throws OAuthLoginRequiredError / `oauth_callback` errors as they are: their message is the whole story.
 */
export async function connectSession(recipe: SessionRecipe, signal?: AbortSignal): Promise<Connected> {
  const { server } = recipe;
  try {
    return await connectOnce(recipe, server.protocol, signal);
  } catch (err) {
    const exitedOnProbe =
      server instanceof StdioServer && server.protocol === "auto" && err instanceof McpConnectError && err.exited && !signal?.aborted;
    if (!exitedOnProbe) throw err;
    getLogger().debug(`MCPClient ${server}: the process ended during the version probe; spawning it again for the 2025 initialize`);
    return connectOnce(recipe, "2025-11-25", signal);
  }
}

/** The SDK's negotiation options for a `protocol` choice. */
export function negotiation(protocol: ProtocolChoice): VersionNegotiationOptions {
  if (protocol === "2025-11-25") return { mode: "legacy" };
  if (protocol === "2026-07-28") return { mode: { pin: "2026-07-28" } };
  // The probe waits the whole request timeout: a server still starting (npx,
  // a heavy import) must not be taken for a 2025 one. A stdio server that
  // never answers it is then opened with initialize (the SDK's rule for pipes).
  return { mode: "auto" };
}

/**
 * How long after its start a stdio server that printed something other than
 * JSON-RPC on stdout (before any message) has to answer: 8 s (with the
 * 2 s its teardown gives it to exit, the error arrives within 10 s). A banner line
 * before a real server's answer is tolerated; a process that is not an MCP
 * server fails here, naming what it printed, rather than at the request
 * timeout (60 s for each of the version probe and initialize).
 */
export const STRAY_OUTPUT_DEADLINE_MS = 8_000;

/**
 * Close a stdio transport whose server printed stray output and did not answer by `started + STRAY_OUTPUT_DEADLINE_MS`;
 * returns the stop.
 */
function watchStrayOutput(transport: Transport, started: number): { readonly fired: () => boolean; readonly stop: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let fired = false;
  if (transport instanceof ProcessGroupStdioTransport) {
    transport.onstray = () => {
      const close = (): void => {
        fired = true;
        void transport.close().catch(ignoreRejection("closing a stdio server that printed stray output"));
      };
      timer = setTimeout(close, Math.max(0, started + STRAY_OUTPUT_DEADLINE_MS - Date.now()));
      timer.unref();
    };
  }
  return {
    fired: () => fired,
    stop: () => {
      if (transport instanceof ProcessGroupStdioTransport) transport.onstray = undefined;
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}

/** What a stdio server printed on stdout that is not JSON-RPC, as a sentence for a connect error. */
function strayNote(transport: Transport): string | undefined {
  const stray = transport instanceof ProcessGroupStdioTransport ? transport.strayOutput : undefined;
  return stray === undefined
    ? undefined
    : `it printed on stdout, where only JSON-RPC may go: ${pyStr(visible(stray))}; is the command an MCP server (some take a flag such as 'stdio' or '--stdio')?`;
}

async function connectOnce(recipe: SessionRecipe, protocol: ProtocolChoice, signal: AbortSignal | undefined): Promise<Connected> {
  const { sdk, server, answers } = recipe;
  const transport: Transport =
    server instanceof StdioServer
      ? new ProcessGroupStdioTransport(server, sdk.parseJSONRPCMessage)
      : server instanceof InMemoryServer
        ? server.transport()
        : httpTransport(sdk, server);
  const session = new sdk.Client(recipe.clientInfo ?? { name: pkg.name, version: pkg.version }, {
    capabilities: sessionCapabilities(recipe),
    versionNegotiation: negotiation(protocol),
    ...recipe.lists.sessionOptions(),
  });
  refuseRepeatedCursor(session);
  answers?.install(session, sdk);
  session.onerror = (err) => getLogger().debug(`MCPClient ${server}: ${err.message}`);
  // The SDK's version probe does not watch the connect signal (2.4.0): an
  // abort closes the transport, which ends the probe (and initialize) at once.
  const onAbort = (): void => void transport.close().catch(ignoreRejection("closing the transport of a connect the caller aborted"));
  signal?.addEventListener("abort", onAbort, { once: true });
  const stray = watchStrayOutput(transport, Date.now());
  try {
    signal?.throwIfAborted();
    await session.connect(transport, { signal, timeout: recipe.timeout });
  } catch (caught) {
    // Closed for its stray output: the SDK's own words ("closed during the probe") are not the story.
    const metadata = metadataProblem(caught);
    const refused = refusal(sdk, caught);
    const err: unknown = signal?.aborted
      ? signal.reason
      : stray.fired()
        ? new Error(`no MCP answer within ${seconds(STRAY_OUTPUT_DEADLINE_MS)} of its start`)
        : metadata
          ? new Error(metadata)
          : (refused ?? caught);
    const exit = signal?.aborted ? undefined : exitNote(transport); // before close(): our own SIGTERM is not the story
    const why =
      exit ??
      authNote(sdk, err) ??
      (refused ? "check the Authorization header" : undefined) ??
      versionNote(err, protocol) ??
      pinnedNote(err, protocol) ??
      httpStatusNote(sdk, err);
    const printed = strayNote(transport);
    const detail = why && printed ? `${why}; ${printed}` : (why ?? printed);
    await session.close().catch(ignoreRejection("closing a session that failed to connect; the connect error is thrown"));
    await transport.close().catch(ignoreRejection("closing a transport that failed to connect; the connect error is thrown"));
    const login = loginError(err);
    if (login) throw login;
    throw new McpConnectError(String(server), stderrTail(transport), err, detail, exit !== undefined);
  } finally {
    signal?.removeEventListener("abort", onAbort);
    stray.stop();
  }
  // After connect: the SDK has set the transport's onmessage, which the task codec wraps.
  if (recipe.tasks) watchTaskHandles(transport);
  return { session, transport };
}

/**
 * The shipped OAuth login's own error (its message is the whole story), also
 * when the SDK's version negotiation wrapped it (`SdkError`, the error at
 * `cause` or `data.cause`).
 */
function loginError(err: unknown): AgentkitError | undefined {
  for (let e = err, depth = 0; e && typeof e === "object" && depth < 4; depth++) {
    if (e instanceof OAuthLoginRequiredError || isCallbackFailure(e)) return e;
    const o = e as { cause?: unknown; data?: { cause?: unknown } };
    e = o.cause ?? o.data?.cause;
  }
  return undefined;
}

/** The last ~4 KiB of a stdio server's stderr ("" for HTTP). */
export function stderrTail(transport: Transport): string {
  return transport instanceof ProcessGroupStdioTransport ? transport.stderrTail.text() : "";
}

function httpStatusNote(sdk: ClientSdk, err: unknown): string | undefined {
  const status = httpStatus(sdk, err);
  if (status === undefined || status < 100) return undefined;
  return status === 401 || status === 403 ? `HTTP ${status}: check the Authorization header` : `HTTP ${status}`;
}

/**
 * A 401 or 403 answer, in the server's own words (its body's
 * `error_description` or `error`, or its text) instead of the SDK's
 * "Version negotiation failed"; the SDK's error is the `cause`. Undefined
 * for any other error.
 */
function refusal(sdk: ClientSdk, err: unknown): Error | undefined {
  const status = httpStatus(sdk, err);
  if (status !== 401 && status !== 403) return undefined;
  const reason = serverReason((err as { data?: { text?: unknown } }).data?.text);
  return new Error(`the server refused the credentials with HTTP ${status}${reason ? `, saying ${JSON.stringify(reason)}` : ""}`, {
    cause: err,
  });
}

/**
 * What an error answer's body says: a JSON body's `error_description` (else `error`, else `message`), or its text, on
 * one line and at most 200 characters.
 */
function serverReason(body: unknown): string | undefined {
  if (typeof body !== "string" || !body.trim()) return undefined;
  let said: unknown = body;
  try {
    const o = JSON.parse(body) as Record<string, unknown> | null;
    said = o?.error_description ?? o?.error ?? o?.message ?? body;
  } catch {
    // Not JSON: the text itself.
  }
  const line = (typeof said === "string" ? said : JSON.stringify(said)).replace(/\s+/g, " ").trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line || undefined;
}

/**
 * The OAuth provider (the shipped one or the app's own) could not authorize: the SDK's `UnauthorizedError`, the app's
 * copy of it included.
 */
function authNote(sdk: ClientSdk, err: unknown): string | undefined {
  return err instanceof sdk.UnauthorizedError ? "not authorized: the server's OAuth provider has no usable login; log in again" : undefined;
}

/** The HTTP status an SDK HTTP error carries, when it is one. */
export function httpStatus(sdk: ClientSdk, err: unknown): number | undefined {
  return err instanceof sdk.SdkHttpError && typeof err.status === "number" ? err.status : undefined;
}

/** A server that refused the pinned version: name it and the ones the server offers. */
function versionNote(err: unknown, protocol: ProtocolChoice): string | undefined {
  const supported = supportedVersions(err);
  if (!supported) return undefined;
  const fix =
    protocol === "auto"
      ? ""
      : `; open it with protocol "auto"${supported.includes("2026-07-28") && protocol !== "2026-07-28" ? ' or "2026-07-28"' : ""}`;
  return `the server speaks ${supported.join(", ")} and this client was set to protocol ${JSON.stringify(protocol)}${fix}`;
}

/**
 * OAuth metadata the SDK's schema refused (a zod error's `issues`, anywhere in
 * the cause chain), as one sentence naming each field: `has no
 * 'authorization_endpoint' (expected a string; ...)`. Undefined otherwise.
 */
function metadataProblem(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const issues = (e as { issues?: unknown }).issues;
    if (!Array.isArray(issues) || !issues.length) continue;
    const parts = (issues as Array<{ path?: unknown[]; expected?: unknown; input?: unknown; message?: unknown }>).map((i) => {
      const field = (i.path ?? []).join(".");
      const expected = typeof i.expected === "string" ? `expected a ${i.expected}` : String(i.message ?? "invalid");
      const why = field === "authorization_endpoint" ? `${expected}; the MCP SDK needs it even for client_credentials` : expected;
      return /received undefined/.test(String(i.message)) ? `has no '${field}' (${why})` : `has a bad '${field}' (${why})`;
    });
    return `the OAuth metadata the client fetched ${parts.join(", and ")}`;
  }
  return undefined;
}

/**
 * A pinned protocol the server did not offer, when it listed no versions (a
 * 2025-only stdio server answers `server/discover` with "method not found"):
 * the same hint as `versionNote`.
 */
function pinnedNote(err: unknown, protocol: ProtocolChoice): string | undefined {
  if (protocol === "auto") return undefined;
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if ((e as { code?: unknown }).code === "ERA_NEGOTIATION_FAILED") {
      const other = protocol === "2026-07-28" ? "2025-11-25" : "2026-07-28";
      return `the server does not offer protocol ${protocol}; open it with protocol "auto" or "${other}"`;
    }
  }
  return undefined;
}

/**
 * The versions a refusing server listed (`data.supported` of a -32022, or the same in an HTTP error body), searched
 * down the cause chain.
 */
function supportedVersions(err: unknown): string[] | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const data = (e as { data?: unknown }).data;
    const list = data && typeof data === "object" ? (data as { supported?: unknown }).supported : undefined;
    if (Array.isArray(list) && list.every((v) => typeof v === "string")) return list as string[];
    const m = /"supported"\s*:\s*(\[[^\]]*\])/.exec(e.message);
    if (m) {
      try {
        return JSON.parse(m[1]!) as string[];
      } catch {
        // not JSON: keep looking
      }
    }
  }
  return undefined;
}

/** How a stdio server's process ended, for messages (undefined while it runs, and for HTTP). */
export function exitNote(transport: Transport): string | undefined {
  if (!(transport instanceof ProcessGroupStdioTransport)) return undefined;
  const s = transport.exitStatus;
  if (!s) return undefined;
  return s.signal ? `the server process was killed by ${s.signal}` : `the server process exited with code ${s.code}`;
}

/** True when `err` is the HTTP 404 a streamable HTTP server answers for a session it no longer has. */
export function isSessionGone(sdk: ClientSdk, err: unknown): boolean {
  return httpStatus(sdk, err) === 404;
}
