/**
 * @module mcp/oauth/oauth.error
 * The errors of the shipped OAuth client: a login that has to be done again
 * (`OAuthLoginRequiredError`, the one a user catches by class: it carries
 * the server's URL), an authorization that came back refused or never came
 * back (code `oauth_callback`), and an authorization-server response over the
 * cap (code `oauth_response_too_large`); those two are `AgentkitError`s
 * told apart by `code`.
 */
import { AgentkitError } from "../../errors/agentkit.error.js";

/**
 * The stored login for a server can no longer be used (its refresh token was
 * refused: revoked or expired) and a person has to log in again. The message
 * names the server and the command that does it. The other OAuth failures
 * are `AgentkitError`s with code `oauth_callback` (the authorization came
 * back refused, from another authorization server, with a wrong `state`, or
 * not in time) or `oauth_response_too_large`.
 */
export class OAuthLoginRequiredError extends AgentkitError {
  constructor(
    /** The MCP server URL the login was for. */
    readonly serverUrl: string,
    why: string,
  ) {
    super("oauth_login_required", `OAuth for ${serverUrl}: ${why}; log in again with: agentkit login ${serverUrl}`);
  }
}

/**
 * The `AgentkitError` (code `oauth_callback`) of an authorization step that
 * failed: the authorization server redirected back with an `error`, the
 * redirect back named another authorization server (`iss`, RFC 9207), the
 * `state` did not match, or nobody finished in time.
 */
export function oauthCallbackError(message: string, options?: { cause?: unknown }): AgentkitError {
  return new AgentkitError("oauth_callback", message, options);
}

/** True for an `oauthCallbackError`. */
export function isCallbackFailure(err: unknown): err is AgentkitError {
  return err instanceof AgentkitError && err.code === "oauth_callback";
}

/**
 * The `AgentkitError` (code `oauth_response_too_large`) of an
 * authorization-server (or resource metadata) response larger than `limit`
 * bytes: it was not read further and the login stops. The message names the
 * URL and the cap.
 */
export function oauthResponseTooLarge(url: string, limit: number): AgentkitError {
  const cap = limit % (1 << 20) === 0 ? `${limit / (1 << 20)} MiB` : `${limit} bytes`;
  return new AgentkitError(
    "oauth_response_too_large",
    `the response from ${url} is larger than ${cap}, the cap on what the OAuth client reads from an ` +
      `authorization server; it was not read further. Check that the MCP server URL points at the server you meant`,
  );
}
