/**
 * @module express/access-token.error
 * A bearer token the JWT verifier refused.
 */
import { AgentkitError } from "../errors/agentkit.error.js";

/** Why a token was refused (`AccessTokenError.reason`). */
export type AccessTokenRefusal =
  "malformed" | "signature" | "expired" | "not_yet_valid" | "issuer" | "audience" | "claims" | "token_type" | "keys_unavailable";

/**
 * A bearer token `jwtVerifier()` refused. `mcpRouter` answers it with 401
 * `invalid_token`; `message` says why without echoing the token.
 */
export class AccessTokenError extends AgentkitError {
  constructor(
    /** Which check failed. */
    readonly reason: AccessTokenRefusal,
    message: string,
    options?: { cause?: unknown },
  ) {
    super("invalid_token", message, options);
  }
}
