/**
 * @module mcp/sdk
 * What `arc-agentkit/mcp` needs installed, in one line. Nothing is loaded
 * here: each part loads its own optional peer when first used and names its
 * own install line when that peer is missing — the client
 * `@modelcontextprotocol/client` (`peers/sdk-client.ts`, at `start()`) and the
 * serving side `@modelcontextprotocol/server` (`peers/sdk-server.ts`); the
 * loopback listener is `node:http` and needs nothing. So a program that only
 * uses `MCPClient` installs only the client package; express is needed only
 * by `arc-agentkit/express`.
 */

/** The line that installs every optional peer of `arc-agentkit/mcp` (the client and serving). */
export const INSTALL_LINE = "npm install @modelcontextprotocol/client @modelcontextprotocol/server";
