/**
 * @module mcp/oauth
 * The shipped OAuth 2.1 client for remote MCP servers: the provider the SDK's
 * client auth functions drive, its token files, and its redirect listener.
 * Every export is listed by name.
 */
export { oauthProvider, AgentkitOAuthProvider } from "./oauth-provider.js";
export type { OAuthProviderOptions } from "./oauth-provider.js";
export { defaultTokenDir } from "./token-store.js";
export { OAuthLoginRequiredError, OAuthCallbackError, OAuthResponseTooLargeError } from "./oauth.error.js";
