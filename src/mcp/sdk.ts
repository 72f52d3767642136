/**
 * @module mcp/sdk
 * What `arc-agentkit/mcp` needs installed, in one line. Nothing is loaded
 * here: each part loads its own optional peer when first used and names its
 * own install line when that peer is missing — the client
 * `@modelcontextprotocol/client` (`client/sdk-client.ts`, at `open()`), the
 * serving side `@modelcontextprotocol/server` (`serve/sdk-server.ts`) and the
 * loopback listener `express` (`listener/express-loader.ts`). So a program that
 * only uses `MCPClient` installs only the client package.
 */

/** The line that installs every optional peer of `arc-agentkit/mcp` (client, serving, and the loopback listener's express). */
export const INSTALL_LINE = "npm install @modelcontextprotocol/client @modelcontextprotocol/server express";
