/**
 * @module express
 * `arc-agentkit/express`: a module (or tools) hosted on the user's own
 * express app, off loopback: statelessly (both protocol eras, any number of
 * processes behind one URL), behind OAuth as a resource server. Every export
 * is listed by name; a test snapshots the list, so an addition is a reviewed
 * decision. Peers: express 5 and `@modelcontextprotocol/express` 2.x (with
 * `@modelcontextprotocol/server`), loaded on first use. `AccessTokenError`
 * is exported from `arc-agentkit`, as every error class is.
 */
export { mcpRouter, hostedCaller } from "./mcp-router.js";
export type { McpRouter, McpRouterTarget } from "./mcp-router.js";
export type { AccessTokenInfo, ListenLimits, McpRouterDevOptions, McpRouterOptions, RateLimit } from "./router-options.js";
export type { DevTokenFiles } from "./dev-issuer.js";
export { jwtVerifier } from "./jwt-verifier.js";
export { hostedServer } from "./hosted-server.js";
export type { HostedServerOptions } from "./hosted-server.js";
export type { JwtVerifierOptions } from "./jwt-verifier.js";
