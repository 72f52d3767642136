/**
 * @module mcp/client/connect-session
 * One transport and one initialized SDK session for a server config: what
 * `MCPClient.open()` does once, and again when a session is re-initialized
 * (HTTP 404) or a stdio server is respawned. Whatever fails is closed before
 * the error is thrown.
 */
import { createRequire } from "node:module";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { getLogger } from "../../util/logger.js";
import { OAuthCallbackError, OAuthLoginRequiredError } from "../oauth/oauth.error.js";
import { sdkClient, sdkHttpClient } from "../sdk.js";
import { StreamableHttpTransport } from "./http-transport.js";
import { McpConnectError } from "./mcp-connect.error.js";
import { runCapabilities, type ServerRequests } from "./server-requests.js";
import { StdioServer, type McpServerConfig } from "./servers.js";
import { ProcessGroupStdioTransport } from "./stdio-transport.js";

const pkg = createRequire(import.meta.url)("../../../package.json") as { name: string; version: string };

/** What a session is made with (fixed for the client's life). */
export interface SessionRecipe {
  readonly server: McpServerConfig;
  readonly clientInfo?: { readonly name: string; readonly version: string };
  readonly validator: jsonSchemaValidator;
  /** Answers server requests; undefined: the client declares no client capabilities. */
  readonly answers?: ServerRequests;
  readonly timeout?: number;
}

/** A connected pair. */
export interface Connected {
  readonly session: Client;
  readonly transport: Transport;
}

/**
 * Start the transport and initialize a session over it.
 *
 * @throws McpConnectError when it cannot be started, reached or initialized (nothing is left open).
 * @throws OAuthLoginRequiredError / OAuthCallbackError as they are: their message is the whole story.
 */
export async function connectSession(recipe: SessionRecipe, signal?: AbortSignal): Promise<Connected> {
  const { server, answers } = recipe;
  const transport = server instanceof StdioServer ? new ProcessGroupStdioTransport(server) : new StreamableHttpTransport(server);
  const session = new sdkClient.Client(recipe.clientInfo ?? { name: pkg.name, version: pkg.version }, { capabilities: answers ? runCapabilities() : {}, jsonSchemaValidator: recipe.validator });
  answers?.install(session);
  session.onerror = (err) => getLogger().debug(`MCPClient ${server}: ${err.message}`);
  try {
    signal?.throwIfAborted();
    await session.connect(transport, { signal, timeout: recipe.timeout });
  } catch (err) {
    const detail = exitNote(transport) ?? httpStatusNote(err); // before close(): our own SIGTERM is not the story
    await session.close().catch(() => {});
    await transport.close().catch(() => {});
    if (err instanceof OAuthLoginRequiredError || err instanceof OAuthCallbackError) throw err;
    throw new McpConnectError(String(server), stderrTail(transport), err, detail);
  }
  return { session, transport };
}

/** The last ~4 KiB of a stdio server's stderr ("" for HTTP). */
export function stderrTail(transport: Transport): string {
  return transport instanceof ProcessGroupStdioTransport ? transport.stderrTail.text() : "";
}

function httpStatusNote(err: unknown): string | undefined {
  if (!(err instanceof sdkHttpClient.StreamableHTTPError) || typeof err.code !== "number" || err.code < 100) return undefined;
  return err.code === 401 || err.code === 403 ? `HTTP ${err.code}: check the Authorization header` : `HTTP ${err.code}`;
}

/** How a stdio server's process ended, for messages (undefined while it runs, and for HTTP). */
export function exitNote(transport: Transport): string | undefined {
  if (!(transport instanceof ProcessGroupStdioTransport)) return undefined;
  const s = transport.exitStatus;
  if (!s) return undefined;
  return s.signal ? `the server process was killed by ${s.signal}` : `the server process exited with code ${s.code}`;
}

/** True when `err` is the HTTP 404 a streamable HTTP server answers for a session it no longer has. */
export function isSessionGone(err: unknown): boolean {
  return err instanceof sdkHttpClient.StreamableHTTPError && err.code === 404;
}
