/**
 * @module mcp/sdk
 * The one place the MCP SDK 1.x (the serving side, until it moves to
 * `@modelcontextprotocol/server`) is loaded and express's presence is checked (the
 * listener loads express behind its own small module). ESM links every static
 * import before running any code, so a guard module alone cannot turn a
 * missing optional peer into a clear message; loading the peers through
 * `createRequire` here can. Everything else in `src/mcp` imports SDK *values*
 * from this module only (type-only imports of the SDK are fine: they are erased).
 * The client loads its own SDK, `@modelcontextprotocol/client`, in
 * `client/sdk-client.ts`.
 */
import type * as ServerModule from "@modelcontextprotocol/sdk/server/index.js";
import type * as StdioServerModule from "@modelcontextprotocol/sdk/server/stdio.js";
import type * as TypesModule from "@modelcontextprotocol/sdk/types.js";
import { MissingPeerError } from "../errors/missing-peer.error.js";
import { requirePeer, resolvePeer } from "../util/optional-peer.js";

/** The line that installs the optional peers of `arc-agentkit/mcp`. */
export const INSTALL_LINE = "npm install @modelcontextprotocol/sdk express";


function missing(id: string, cause: unknown): MissingPeerError {
  return new MissingPeerError(
    id,
    INSTALL_LINE,
    `arc-agentkit/mcp needs the optional peer dependencies @modelcontextprotocol/sdk and express, and '${id}' could not be loaded. Install them with: ${INSTALL_LINE}`,
    { cause },
  );
}

function load<T>(id: string): T {
  return requirePeer<T>(id, (cause) => missing(id, cause));
}

// Fail at import time, naming the install line, when either peer is absent.
for (const id of ["@modelcontextprotocol/sdk/types.js", "express"]) resolvePeer(id, (cause) => missing(id, cause));

/** Request/result schemas, `McpError`, `ErrorCode`, `isInitializeRequest`, ... */
export const sdkTypes = load<typeof TypesModule>("@modelcontextprotocol/sdk/types.js");
/**
 * True for an `McpError` of any copy of the SDK: agentkit's, or the ES module
 * build an app imports itself, whose class is a different one (so
 * `instanceof` alone misses it). Known by the SDK's name for it and an
 * integer JSON-RPC code, which is all the SDK reads from an error it sends.
 */
export function isMcpError(err: unknown): err is InstanceType<typeof TypesModule.McpError> {
  return err instanceof sdkTypes.McpError || (err instanceof Error && err.name === "McpError" && Number.isSafeInteger((err as { code?: unknown }).code));
}

let server: typeof ServerModule | undefined;
let stdioServer: typeof StdioServerModule | undefined;

/** The low-level `Server` module, loaded on first use (client-only users never pay for it). */
export function sdkServer(): typeof ServerModule {
  return (server ??= load<typeof ServerModule>("@modelcontextprotocol/sdk/server/index.js"));
}
/** `StdioServerTransport`, loaded on first use. */
export function sdkStdioServer(): typeof StdioServerModule {
  return (stdioServer ??= load<typeof StdioServerModule>("@modelcontextprotocol/sdk/server/stdio.js"));
}
