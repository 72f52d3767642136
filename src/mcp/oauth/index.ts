/**
 * @module mcp/oauth
 * The shipped OAuth 2.1 clients for remote MCP servers: the browser login
 * (its token files and redirect listener), client credentials and Cross-App
 * Access, each a provider the SDK's client auth functions drive.
 * Every export is listed by name.
 */
export { oauthProvider, AgentkitOAuthProvider } from "./oauth-provider.js";
export type { OAuthProviderOptions } from "./oauth-provider.js";
export { defaultTokenDir } from "./token-store.js";
export { clientCredentials, ClientCredentialsProvider, CLIENT_ASSERTION_ALGORITHMS } from "./client-credentials.js";
export type { ClientAssertionAlgorithm, ClientCredentialsOptions } from "./client-credentials.js";
export { crossAppAccess, CrossAppAccessProvider } from "./cross-app-access.js";
export type { CrossAppAccessIdp, CrossAppAccessOptions } from "./cross-app-access.js";
export { OAuthLoginRequiredError } from "./oauth.error.js";
