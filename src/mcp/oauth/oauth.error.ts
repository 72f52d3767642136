/**
 * @module mcp/oauth/oauth.error
 * The errors of the shipped OAuth client: a login that has to be done again,
 * and an authorization that came back refused or never came back.
 */
import { AgentkitError } from "../../errors/agentkit.error.js";

/**
 * The stored login for a server can no longer be used (its refresh token was
 * refused: revoked or expired) and a person has to log in again. The message
 * names the server and the command that does it.
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
 * The authorization step failed: the authorization server redirected back
 * with an `error`, the redirect back named another authorization server
 * (`iss`, RFC 9207), the `state` did not match, or nobody finished in time.
 */
export class OAuthCallbackError extends AgentkitError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("oauth_callback", message, options);
  }
}

/**
 * An authorization-server (or resource metadata) response was larger than
 * the cap (1 MiB): it was not read further and the login stops. The message
 * names the URL and the cap.
 */
export class OAuthResponseTooLargeError extends AgentkitError {
  constructor(
    /** The URL whose response was too large. */
    readonly url: string,
    /** The cap, in bytes. */
    readonly limit: number,
  ) {
    const cap = limit % (1 << 20) === 0 ? `${limit / (1 << 20)} MiB` : `${limit} bytes`;
    super(
      "oauth_response_too_large",
      `the response from ${url} is larger than ${cap}, the cap on what the OAuth client reads from an ` +
        `authorization server; it was not read further. Check that the MCP server URL points at the server you meant`,
    );
  }
}
