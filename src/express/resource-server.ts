/**
 * @module express/resource-server
 * The OAuth resource-server pieces of a hosted router, pure where they can
 * be: the user's `verifyAccessToken` adapted to the SDK's verifier (a throw
 * or a malformed answer is `invalid_token`, never a 500), the caller a call's
 * context carries, and the RFC 9728 document. (Which scopes a request needs:
 * `scope-fence`.)
 */
import type { AuthInfo, OAuthTokenVerifier, ServerContext } from "@modelcontextprotocol/server";
import { sdkServer } from "../mcp/peers/sdk-server.js";
import { errorLine, pyList, pyStr } from "../util/format.js";
import type { AccessTokenInfo, CheckedRouterOptions } from "./router-options.js";
import type { HostedCaller } from "../context/caller.js";

/** What a verified token says of its caller: a `HostedCaller` but the request's own fields. */
type TokenIdentity = Omit<HostedCaller, "kind" | "server" | "requestId">;

/** Where the hosted caller travels inside the SDK's `AuthInfo.extra`. */
const CALLER_KEY = "agentkit/hostedCaller";
/** Where the caller's principal key travels beside it (computed once, when the token is verified). */
const PRINCIPAL_KEY = "agentkit/principal";

/** The longest verifier message a 401 repeats (its first line). */
const MAX_DESCRIPTION = 200;

function invalidToken(description: string): Error {
  const { OAuthError, OAuthErrorCode } = sdkServer();
  // RFC 6750 error_description: printable ASCII without '"' or '\'.
  const safe = description.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, " ").slice(0, MAX_DESCRIPTION);
  return new OAuthError(OAuthErrorCode.InvalidToken, safe);
}

/** What is wrong with a verifier's answer, or `undefined`. */
function infoProblem(info: unknown): string | undefined {
  const i = info as Partial<AccessTokenInfo> | null;
  if (!i || typeof i !== "object") return "it returned no object";
  if (typeof i.clientId !== "string" || i.clientId === "") return "it returned no clientId";
  if (!Array.isArray(i.scopes) || i.scopes.some((s) => typeof s !== "string")) return "its scopes are not an array of strings";
  if (typeof i.expiresAt !== "number" || !Number.isFinite(i.expiresAt)) return "it returned no expiresAt (seconds since the epoch)";
  if (!(i.resource instanceof URL) && typeof i.resource !== "string") return "it returned no resource (the token's audience)";
  if (i.subject !== undefined && typeof i.subject !== "string") return "its subject is not a string";
  return undefined;
}

/**
 * The SDK verifier over the user's `verifyAccessToken`: a throw becomes
 * `invalid_token` carrying the thrown message's first line; an answer of the
 * wrong shape does too (and `warn` says so once per shape, for the operator).
 * The SDK then checks expiry and the audience against `resource`.
 */
export function tokenVerifier(options: CheckedRouterOptions, warn: (message: string) => void): OAuthTokenVerifier {
  const warned = new Set<string>();
  return {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      let info: AccessTokenInfo;
      try {
        info = await options.verifyAccessToken(token);
      } catch (err) {
        throw invalidToken(`the access token was refused: ${errorLine(err)}`);
      }
      const problem = infoProblem(info);
      if (problem) {
        if (!warned.has(problem))
          warn(
            `mcpRouter: verifyAccessToken answered a token wrongly (${problem}); the token was refused. It must ` +
              `return { clientId, scopes, expiresAt, resource, subject? } or throw`,
          );
        warned.add(problem);
        throw invalidToken("the access token could not be verified");
      }
      let resource: URL;
      try {
        resource = new URL(String(info.resource));
      } catch {
        throw invalidToken("the access token's audience is not a URL");
      }
      const scopes = [...info.scopes];
      const caller: { -readonly [K in keyof TokenIdentity]: TokenIdentity[K] } = {
        clientId: info.clientId,
        scopes: Object.freeze(scopes.slice()),
        expiresAt: info.expiresAt,
        resource: resource.href,
      };
      if (info.subject !== undefined) caller.subject = info.subject;
      if (info.extra !== undefined) caller.extra = Object.freeze({ ...info.extra });
      return {
        token,
        clientId: info.clientId,
        scopes,
        expiresAt: info.expiresAt,
        resource,
        extra: { [CALLER_KEY]: Object.freeze(caller), [PRINCIPAL_KEY]: principalKey(caller) },
      };
    },
  };
}

/**
 * The hosted caller of a request of module `server` (its `ctx.caller`): the
 * identity its verified token established (see `tokenVerifier`) and the request.
 * @throws Error when the request carries no verified token (the router verifies every request before serving it).
 */
export function hostedCallerOf(extra: ServerContext, server: string): HostedCaller {
  return callerOfToken(extra.http?.authInfo, server, extra.mcpReq.id);
}

/**
 * The hosted caller of request `requestId` of module `server` whose verified token is `auth` (see `hostedCallerOf`).
 * @throws Error when `auth` is not a token the router verified.
 */
export function callerOfToken(auth: AuthInfo | undefined, server: string, requestId: string | number): HostedCaller {
  const identity = auth?.extra?.[CALLER_KEY] as TokenIdentity | undefined;
  if (!identity) throw new Error(`mcpRouter: a request reached module '${server}' without a verified access token`);
  return Object.freeze({ kind: "hosted", server, requestId, ...identity });
}

/**
 * Who a verified token speaks for: its issuer (`extra.issuer`, a string, as
 * `jwtVerifier` sets it), client and end user — the same for every spelling
 * of one token and for every token of one principal. The rate limit counts
 * it and a 2026-07-28 request state is bound to it.
 */
function principalKey(caller: TokenIdentity): string {
  const issuer = caller.extra?.["issuer"];
  return `${typeof issuer === "string" ? issuer : ""}\0${caller.clientId}\0${caller.subject ?? ""}`;
}

/** The principal key of a verified request (see `principalKey`), or `""` when it carries none. */
export function principalOf(auth: AuthInfo | undefined): string {
  const key = auth?.extra?.[PRINCIPAL_KEY];
  return typeof key === "string" ? key : "";
}

/** The RFC 9728 protected-resource metadata of a router. */
export function protectedResourceMetadata(options: CheckedRouterOptions, servedScopes: readonly string[]): Record<string, unknown> {
  return {
    resource: options.resource.href,
    // Development mode has no authorization server to name (its tokens come from its own files).
    ...(options.authorizationServers.length ? { authorization_servers: [...options.authorizationServers] } : {}),
    scopes_supported: [...(options.scopesSupported ?? servedScopes)],
    bearer_methods_supported: ["header"],
    ...(options.resourceName ? { resource_name: options.resourceName } : {}),
  };
}

/**
 * The refusal of a request whose `Host` names a hostname outside
 * `allowedHosts` (port-agnostic, as the SDK's own check), as one sentence
 * naming the hostname, the option, its value and the fix; undefined when the
 * hostname is allowed, or when there is no parsable Host (the SDK's check
 * answers those). Pure.
 */
export function hostRefusal(host: string | undefined, allowedHosts: readonly string[]): string | undefined {
  if (!host) return undefined;
  let name: string;
  try {
    name = new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
  if (allowedHosts.includes(name)) return undefined;
  return (
    `Invalid Host: ${name}. This router answers only for the hostnames in mcpRouter's 'allowedHosts' (now ` +
    `${pyList(allowedHosts)}: by default the hostname of 'resource'); call it by one of them, or add ${pyStr(name)} ` +
    `to allowedHosts (and serve a 'resource' on it, since tokens are bound to the resource)`
  );
}
