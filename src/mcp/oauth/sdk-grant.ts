/**
 * @module mcp/oauth/sdk-grant
 * What the shipped machine grants (`clientCredentials`, `crossAppAccess`)
 * share: an `OAuthClientProvider` with no person and no redirect whose token
 * request is the SDK's own provider's, made on the first token request (the
 * SDK is `import()`ed then) and bound to one authorization server: the
 * `issuer` option, else the first one discovered (kept for this provider's
 * life, so credentials never go to a second one). Secrets sit in private
 * fields: not in `JSON.stringify`, `util.inspect`, errors or logs.
 */
import type {
  AddClientAuthentication,
  OAuthClientInformationContext,
  OAuthClientMetadata,
  OAuthClientProvider,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { OptionsError } from "../../errors/options.error.js";
import type { OptionRule } from "../../options/option-checks.js";
import { clientSdk, type ClientSdk } from "../peers/sdk-client.js";
import { oauthCallbackError } from "./oauth.error.js";

/** The grant options as spec rules: a secret (never echoed), a `scope`, an issuer or endpoint URL. */
export const grantRule = {
  secret:
    <R extends boolean>(required: R): OptionRule<R extends true ? string : string | undefined> =>
    (v, where, option) =>
      checkSecret(v, where, option, required) as R extends true ? string : string | undefined,
  scope: (): OptionRule<string | undefined> => (v, where) => checkScope(v, where),
  issuer: (): OptionRule<string | undefined> => (v, where, option) => checkIssuer(v, where, option),
} as const;

/** Makes the SDK provider a grant delegates to, bound to `expectedIssuer` (undefined only before any discovery). */
export type MakeSdkProvider = (sdk: ClientSdk, expectedIssuer: string | undefined) => OAuthClientProvider;

/** A secret option (`clientSecret`, `privateKeyPem`, `idToken`): a non-empty string. Its value is never echoed. */
export function checkSecret(value: unknown, where: string, option: string, required: boolean): string | undefined {
  if (value === undefined && !required) return undefined;
  if (typeof value !== "string" || value.trim() === "") {
    const got =
      value === undefined ? "nothing" : value === "" ? "an empty string" : `a value of type ${value === null ? "null" : typeof value}`;
    throw new OptionsError(where, option, `${where}: '${option}' must be a non-empty string, got ${got}`);
  }
  return value;
}

/** A `scope` option: space-separated scope names (printable, no quotes or backslashes, RFC 6749 §3.3). */
export function checkScope(value: unknown, where: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !/^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/.test(value)) {
    throw new OptionsError(
      where,
      "scope",
      `${where}: 'scope' must be scope names separated by single spaces (e.g. "mcp:read mcp:write"), got ` +
        `${typeof value === "string" ? JSON.stringify(value.slice(0, 60)) : typeof value}`,
    );
  }
  return value;
}

/** An `issuer` (an authorization server's issuer identifier) or endpoint option: an https URL, or http on a loopback host. */
export function checkIssuer(value: unknown, where: string, option = "issuer"): string | undefined {
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = typeof value === "string" ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  const loopback = url && (url.hostname === "127.0.0.1" || url.hostname === "localhost" || url.hostname === "[::1]");
  if (!url || !(url.protocol === "https:" || (url.protocol === "http:" && loopback))) {
    throw new OptionsError(
      where,
      option,
      `${where}: '${option}' must be an https URL (or http on a loopback host), got ` +
        `${typeof value === "string" ? JSON.stringify(value.slice(0, 80)) : typeof value}`,
    );
  }
  return value as string;
}

/**
 * The base of the shipped machine grants: no redirect, tokens in memory,
 * the token request delegated to the SDK provider `make` builds.
 */
export abstract class SdkGrant implements OAuthClientProvider {
  readonly #where: string;
  readonly #metadata: OAuthClientMetadata;
  readonly #make: MakeSdkProvider;
  #issuer: string | undefined;
  #inner?: Promise<OAuthClientProvider>;
  #tokens?: StoredOAuthTokens;

  /** Used by the token request of a grant that signs its own client authentication (private-key JWT). */
  addClientAuthentication?: AddClientAuthentication;

  protected constructor(where: string, metadata: OAuthClientMetadata, issuer: string | undefined, make: MakeSdkProvider) {
    this.#where = where;
    this.#metadata = Object.freeze({ ...metadata });
    this.#issuer = issuer;
    this.#make = make;
  }

  /** The authorization server these credentials are bound to: the `issuer` option, else the first one discovered (undefined before). */
  get issuer(): string | undefined {
    return this.#issuer;
  }

  /** The SDK provider, made once, bound to the issuer known by then (`seen`: what discovery found). */
  protected inner(seen?: string): Promise<OAuthClientProvider> {
    this.#issuer ??= seen;
    return (this.#inner ??= clientSdk().then((sdk) => this.#make(sdk, this.#issuer)));
  }

  /** None: nobody is sent anywhere. */
  get redirectUrl(): undefined {
    return undefined;
  }

  /** What this client is (its grant type and token-endpoint authentication); never registered dynamically. */
  get clientMetadata(): OAuthClientMetadata {
    return this.#metadata;
  }

  /** The configured client, stamped with the issuer it is bound to (SEP-2352: another authorization server is refused). */
  async clientInformation(ctx?: OAuthClientInformationContext): Promise<StoredOAuthClientInformation | undefined> {
    return (await this.inner(ctx?.issuer)).clientInformation();
  }

  /** The tokens of this provider's life (in memory only). */
  tokens(): StoredOAuthTokens | undefined {
    return this.#tokens;
  }

  /** Keep new tokens (in memory), with the SDK's `issuer` stamp. */
  saveTokens(tokens: StoredOAuthTokens): void {
    this.#tokens = tokens;
  }

  /** Drop the tokens the authorization server refused (the next request asks for new ones with the same credentials). */
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "tokens") this.#tokens = undefined;
  }

  /** The grant's token request (the SDK provider's). */
  async prepareTokenRequest(scope?: string): Promise<URLSearchParams | undefined> {
    return (await this.inner()).prepareTokenRequest?.(scope);
  }

  /** Told the authorization server's issuer once discovered: binds the credentials to it when no `issuer` was given. */
  async saveAuthorizationServerUrl(issuer: string): Promise<void> {
    await (await this.inner(issuer)).saveAuthorizationServerUrl?.(issuer);
  }

  /** Told the MCP server's resource URL (RFC 9728). */
  async saveResourceUrl(url: string): Promise<void> {
    await (await this.inner()).saveResourceUrl?.(url);
  }

  /** Never called for a grant without a redirect. @throws AgentkitError (code `oauth_callback`) */
  redirectToAuthorization(): never {
    throw oauthCallbackError(
      `${this.#where}: this grant has no browser authorization (no redirect); the authorization server asked for ` +
        `one, so it does not accept this grant for this server`,
    );
  }

  /** Nothing to keep: no PKCE without a redirect. */
  saveCodeVerifier(): void {}

  /** Never called for a grant without a redirect. @throws AgentkitError (code `oauth_callback`) */
  codeVerifier(): never {
    throw oauthCallbackError(`${this.#where}: this grant has no authorization code, so no PKCE verifier`);
  }

  /** What a console shows: the grant and its issuer, never a secret. */
  toJSON(): { grant: string; issuer: string | undefined } {
    return { grant: this.#where, issuer: this.#issuer };
  }
}
