/**
 * @module mcp/peers/sdk-server
 * The one place the serving side loads the official MCP SDK v2 server
 * package (`@modelcontextprotocol/server` 2.x), on first use, so a client-only
 * user never pays for it and a missing package fails with the install line.
 * Everything in `serve/`, `loopback/` and `approvals/` takes SDK *values* from
 * here (type-only imports of the package are fine: they are erased).
 */
import type * as ServerModule from "@modelcontextprotocol/server";
import type * as StdioServerModule from "@modelcontextprotocol/server/stdio";
import type * as SkillsNodeModule from "@modelcontextprotocol/server/ext/skills/node";
import { MissingPeerError } from "../../errors/missing-peer.error.js";
import { lazyPeer } from "../../util/optional-peer.js";

/** The line that installs the serving side's peer. */
export const SERVER_INSTALL_LINE = "npm install @modelcontextprotocol/server";

function missing(id: string): (cause: unknown) => MissingPeerError {
  return (cause) =>
    new MissingPeerError(
      id,
      SERVER_INSTALL_LINE,
      `serving MCP (serveRegistry, serveRegistryStdio, ApprovalServer, bootstrap) needs the optional peer ` +
        `dependency @modelcontextprotocol/server 2.x, and '${id}' could not be loaded. Install it with: ` +
        `${SERVER_INSTALL_LINE}`,
      { cause },
    );
}

/**
 * The v2 server module: the low-level `Server`, `ProtocolError`,
 * `classifyInboundRequest`, `createMcpHandler`, ... Loaded on first call;
 * throws `MissingPeerError` (with the install line) when it is not installed.
 */
export const sdkServer: () => typeof ServerModule = lazyPeer<typeof ServerModule>(
  "@modelcontextprotocol/server",
  missing("@modelcontextprotocol/server"),
);

/** `serveStdio` and `StdioServerTransport` (`@modelcontextprotocol/server/stdio`), loaded on first call. */
export const sdkStdioServer: () => typeof StdioServerModule = lazyPeer<typeof StdioServerModule>(
  "@modelcontextprotocol/server/stdio",
  missing("@modelcontextprotocol/server/stdio"),
);

/**
 * The skills extension's Node part (`@modelcontextprotocol/server/ext/skills/node`: `loadSkills`, `nodeSkillFiles`),
 * loaded on first call.
 */
export const sdkSkills: () => typeof SkillsNodeModule = lazyPeer<typeof SkillsNodeModule>(
  "@modelcontextprotocol/server/ext/skills/node",
  missing("@modelcontextprotocol/server/ext/skills/node"),
);

/** The low-level SDK v2 `Server` class's instance type. */
export type SdkServer = ServerModule.Server;

/**
 * True for a JSON-RPC error a handler means to send as it is (the SDK's
 * `ProtocolError`, brand-matched across copies of the SDK), rather than an
 * ordinary failure to be described.
 */
export function isProtocolError(err: unknown): err is ServerModule.ProtocolError {
  return sdkServer().ProtocolError.isInstance(err);
}
