/**
 * @module mcp/oauth/client-credentials
 * `clientCredentials(...)`: the OAuth client-credentials grant (machine to
 * machine, no person) as a shipped provider, authenticating with a client
 * secret (`client_secret_basic`) or a private-key JWT (`private_key_jwt`,
 * RFC 7523). The token requests are the SDK's `ClientCredentialsProvider` /
 * `PrivateKeyJwtProvider`; this checks the options when given and keeps the
 * secrets out of sight.
 */
import { createPrivateKey, type KeyObject } from "node:crypto";
import { OptionsError } from "../../errors/options.error.js";
import { checkOptions, opt } from "../../options/option-checks.js";
import { grantRule, SdkGrant } from "./sdk-grant.js";

/** The JWT signing algorithms a `privateKeyPem` may use. */
export const CLIENT_ASSERTION_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"] as const;

/** A JWS algorithm for `private_key_jwt`: one of `CLIENT_ASSERTION_ALGORITHMS`. */
export type ClientAssertionAlgorithm = (typeof CLIENT_ASSERTION_ALGORITHMS)[number];

/** Options of `clientCredentials()`: `clientId` and exactly one of `clientSecret` / `privateKeyPem`. */
export interface ClientCredentialsOptions {
  /** The client id registered with the MCP server's authorization server. */
  readonly clientId: string;
  /** The client secret (sent as HTTP Basic, `client_secret_basic`). Never logged, never in an error. */
  readonly clientSecret?: string;
  /**
   * A PEM private key (PKCS#8, or PKCS#1 RSA / SEC1 EC: converted) that signs
   * a short-lived JWT client assertion per token request (`private_key_jwt`).
   * Never logged, never in an error.
   */
  readonly privateKeyPem?: string;
  /** The assertion's algorithm. Default: from the key (RSA -> `RS256`, P-256 -> `ES256`, P-384 -> `ES384`, P-521 -> `ES512`). */
  readonly algorithm?: ClientAssertionAlgorithm;
  /** The scope to ask for, space-separated (default: what the server's challenge or metadata names). */
  readonly scope?: string;
  /**
   * The issuer of the authorization server these credentials belong to. The
   * credentials are sent to no other (SEP-2352). Default: the first
   * authorization server the MCP server names, kept for this provider's life.
   */
  readonly issuer?: string;
  /** `client_name` in the client's metadata. Default `"arc-agentkit"`. */
  readonly clientName?: string;
}

const WHERE = "clientCredentials";

/**
 * The options of `clientCredentials()`, declared once; which of the two secrets, and `algorithm` against the key,
 * follow in the constructor.
 */
const CLIENT_CREDENTIALS_OPTIONS = {
  clientId: opt.nonEmptyString("the client id registered with the authorization server"),
  clientSecret: grantRule.secret(false),
  privateKeyPem: grantRule.secret(false),
  algorithm: opt.any<unknown>(),
  scope: grantRule.scope(),
  issuer: grantRule.issuer(),
  clientName: opt.string("a non-empty string", true),
} as const;

/** The key, parsed now so a bad one is refused at construction (the message never holds the key). */
function parseKey(pem: string): KeyObject {
  try {
    return createPrivateKey({ key: pem, format: "pem" });
  } catch (err) {
    const why = (err as { code?: string }).code ?? "unreadable";
    throw new OptionsError(
      WHERE,
      "privateKeyPem",
      `${WHERE}: 'privateKeyPem' is not a PEM private key node:crypto can read (${why}); pass the PEM text of an ` +
        `RSA or EC private key ("-----BEGIN PRIVATE KEY-----")`,
    );
  }
}

/** The algorithm: the option checked against the key, or the key's own default. */
function algorithmFor(key: KeyObject, asked: unknown): ClientAssertionAlgorithm {
  const curve = key.asymmetricKeyDetails?.namedCurve;
  const ec: Record<string, ClientAssertionAlgorithm> = { prime256v1: "ES256", secp384r1: "ES384", secp521r1: "ES512" };
  const own = key.asymmetricKeyType === "rsa" ? "RS256" : key.asymmetricKeyType === "ec" && curve ? ec[curve] : undefined;
  if (!own)
    throw new OptionsError(
      WHERE,
      "privateKeyPem",
      `${WHERE}: 'privateKeyPem' is a ${key.asymmetricKeyType}${curve ? ` (${curve})` : ""} key; accepted: RSA, or ` +
        `EC on P-256, P-384 or P-521`,
    );
  if (asked === undefined) return own;
  const accepted = key.asymmetricKeyType === "rsa" ? CLIENT_ASSERTION_ALGORITHMS.filter((a) => !a.startsWith("ES")) : [own];
  if (typeof asked !== "string" || !(accepted as readonly string[]).includes(asked)) {
    throw new OptionsError(
      WHERE,
      "algorithm",
      `${WHERE}: 'algorithm' must be one of ${accepted.join(", ")} for this ` +
        `${key.asymmetricKeyType === "rsa" ? "RSA" : `EC ${curve}`} key, got ` +
        `${typeof asked === "string" ? JSON.stringify(asked.slice(0, 20)) : typeof asked}`,
    );
  }
  return asked as ClientAssertionAlgorithm;
}

/**
 * The client-credentials grant (made by `clientCredentials()`). No person,
 * no redirect, no token file: a token is asked for when the server says 401,
 * kept in memory, and asked for again when it is refused.
 */
export class ClientCredentialsProvider extends SdkGrant {
  /** How the client authenticates at the token endpoint. */
  readonly method: "client_secret_basic" | "private_key_jwt";

  /** @internal Use `clientCredentials()`. */
  constructor(options: ClientCredentialsOptions) {
    const {
      clientId,
      clientSecret: secret,
      privateKeyPem: pem,
      scope,
      issuer,
      ...o
    } = checkOptions(options, WHERE, CLIENT_CREDENTIALS_OPTIONS);
    if ((secret === undefined) === (pem === undefined)) {
      throw new OptionsError(
        WHERE,
        secret ? "privateKeyPem" : "clientSecret",
        `${WHERE}: give exactly one of 'clientSecret' (client_secret_basic) or 'privateKeyPem' (private_key_jwt), ` +
          `got ${secret ? "both" : "neither"}`,
      );
    }
    if (secret !== undefined && o.algorithm !== undefined)
      throw new OptionsError(WHERE, "algorithm", `${WHERE}: 'algorithm' goes with 'privateKeyPem' only (a client secret is not signed)`);
    const clientName = o.clientName ?? "arc-agentkit";
    const key = pem === undefined ? undefined : parseKey(pem);
    const algorithm = key && algorithmFor(key, o.algorithm);
    const privateKey = key?.export({ format: "pem", type: "pkcs8" }).toString();
    const method = secret !== undefined ? "client_secret_basic" : "private_key_jwt";
    const metadata = {
      client_name: clientName,
      redirect_uris: [],
      grant_types: ["client_credentials"],
      token_endpoint_auth_method: method,
      ...(scope ? { scope } : {}),
    };
    super(WHERE, metadata, issuer, (sdk, expectedIssuer) =>
      privateKey !== undefined
        ? new sdk.PrivateKeyJwtProvider({ clientId, privateKey, algorithm: algorithm!, clientName, scope, expectedIssuer: expectedIssuer! })
        : new sdk.ClientCredentialsProvider({ clientId, clientSecret: secret!, clientName, scope, expectedIssuer: expectedIssuer! }),
    );
    this.method = method;
    // private_key_jwt: the SDK signs a fresh assertion into each token request.
    if (privateKey !== undefined)
      this.addClientAuthentication = async (headers, params, url, md) =>
        (await this.inner()).addClientAuthentication?.(headers, params, url, md);
  }
}

/**
 * The OAuth client-credentials grant for `StreamableHttpServer({ url, auth })`:
 * machine to machine, no browser. Give `clientId` and exactly one of
 * `clientSecret` (sent as HTTP Basic) or `privateKeyPem` (+ `algorithm`, a
 * signed JWT client assertion per token request). Tokens live in memory;
 * a refused token is asked for again with the same credentials.
 *
 * Security: the credentials go only to the authorization server named by
 * `issuer` (default: the first one the MCP server names, kept); secrets are
 * never logged, printed, serialized or put in an error.
 *
 * @throws OptionsError (at once) naming the option: a missing `clientId`,
 *   both or neither of `clientSecret`/`privateKeyPem`, a key node:crypto
 *   cannot read or of an unsupported type, an `algorithm` that does not fit
 *   the key, a malformed `scope` or `issuer`, an unknown option.
 * @throws MissingPeerError (on the first token request) when `@modelcontextprotocol/client` is not installed.
 */
export function clientCredentials(options: ClientCredentialsOptions): ClientCredentialsProvider {
  return new ClientCredentialsProvider(options);
}
