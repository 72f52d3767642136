/**
 * @module mcp/oauth/cross-app-access
 * `crossAppAccess(...)`: Enterprise-Managed Authorization (Cross-App Access,
 * SEP-990) as a shipped provider. The person's ID token from the enterprise
 * IdP is exchanged at the IdP for an ID-JAG (RFC 8693 token exchange), and
 * the ID-JAG at the MCP server's authorization server for an access token
 * (RFC 7523 JWT bearer grant). Both steps are the SDK's
 * (`CrossAppAccessProvider`, `requestJwtAuthorizationGrant`,
 * `discoverAndRequestJwtAuthGrant`); this checks the options when given,
 * caps what the IdP may send, and keeps the secrets out of sight.
 */
import { OptionsError } from "../../errors/options.error.js";
import { checkOptions, opt, type CheckedOptions, type OptionRule } from "../../options/option-checks.js";
import { cappedFetch } from "./capped-fetch.js";
import { checkSecret, grantRule, SdkGrant } from "./sdk-grant.js";

/** The enterprise identity provider that performs the token exchange. */
export interface CrossAppAccessIdp {
  /** The IdP's issuer URL: its token endpoint is discovered (RFC 8414 / OpenID). Give this or `tokenEndpoint`. */
  readonly issuer?: string;
  /** The IdP's token endpoint, used as it is (no discovery). Give this or `issuer`. */
  readonly tokenEndpoint?: string;
  /** This client's id at the IdP. */
  readonly clientId: string;
  /** This client's secret at the IdP (omit for a public client). Never logged, never in an error. */
  readonly clientSecret?: string;
}

/** Options of `crossAppAccess()`. */
export interface CrossAppAccessOptions {
  /** The client id registered with the MCP server's authorization server. */
  readonly clientId: string;
  /** The client secret at the MCP server's authorization server (HTTP Basic). Never logged, never in an error. */
  readonly clientSecret: string;
  /** The enterprise IdP. */
  readonly idp: CrossAppAccessIdp;
  /**
   * The person's OpenID Connect ID token from the IdP, or a function that
   * returns a current one (called for each exchange, so it may refresh it).
   * Never logged, never in an error.
   */
  readonly idToken: string | (() => string | Promise<string>);
  /** The scope to ask for at the MCP server, space-separated (default: what its challenge or metadata names). */
  readonly scope?: string;
  /** The issuer of the MCP server's authorization server; the credentials go to no other. Default: the first one it names, kept. */
  readonly issuer?: string;
  /** `client_name` in the client's metadata. Default `"arc-agentkit"`. */
  readonly clientName?: string;
}

const WHERE = "crossAppAccess";

/** `idp`: the enterprise IdP, its own keys refused by name; exactly one of `issuer` / `tokenEndpoint` follows in `checkIdp`. */
const IDP_OPTIONS = {
  issuer: grantRule.issuer(),
  tokenEndpoint: grantRule.issuer(),
  clientId: opt.nonEmptyString("this client's id at the IdP"),
  clientSecret: grantRule.secret(false),
} as const;

/** The options of `crossAppAccess()`, declared once. */
const CROSS_APP_ACCESS_OPTIONS = {
  clientId: opt.nonEmptyString("the client id registered with the MCP server's authorization server"),
  clientSecret: grantRule.secret(true),
  idp: opt.required(opt.object(IDP_OPTIONS), "{ issuer | tokenEndpoint, clientId, clientSecret? } of the enterprise identity provider"),
  idToken: ((v, where, option) => (typeof v === "function" ? v : grantRule.secret(true)(v, where, option))) as OptionRule<
    CrossAppAccessOptions["idToken"]
  >,
  scope: grantRule.scope(),
  issuer: grantRule.issuer(),
  clientName: opt.string("a non-empty string", true),
} as const;

function checkIdp(idp: CheckedOptions<typeof IDP_OPTIONS>): CrossAppAccessIdp {
  if ((idp.issuer === undefined) === (idp.tokenEndpoint === undefined)) {
    throw new OptionsError(
      WHERE,
      "idp",
      `${WHERE}: 'idp' needs exactly one of 'issuer' (its token endpoint is discovered) or 'tokenEndpoint', got ` +
        `${idp.issuer === undefined ? "neither" : "both"}`,
    );
  }
  return idp;
}

/** The ID token, now: the option's string, or what its function returns (checked: a function may hand back anything). */
async function currentIdToken(idToken: CrossAppAccessOptions["idToken"]): Promise<string> {
  const token = typeof idToken === "function" ? await idToken() : idToken;
  return checkSecret(token, WHERE, "idToken() result", true)!;
}

/**
 * The Cross-App Access grant (made by `crossAppAccess()`). No browser at the
 * MCP server: the IdP's ID token stands for the person. Tokens live in memory.
 */
export class CrossAppAccessProvider extends SdkGrant {
  /** @internal Use `crossAppAccess()`. */
  constructor(options: CrossAppAccessOptions) {
    const { clientId, clientSecret, idToken, scope, issuer, ...o } = checkOptions(options, WHERE, CROSS_APP_ACCESS_OPTIONS);
    const idp = checkIdp(o.idp);
    const clientName = o.clientName ?? "arc-agentkit";
    const metadata = {
      client_name: clientName,
      redirect_uris: [],
      grant_types: ["urn:ietf:params:oauth:grant-type:jwt-bearer"],
      token_endpoint_auth_method: "client_secret_basic",
      ...(scope ? { scope } : {}),
    };
    // What the IdP sends is read capped, as every authorization-server response is.
    const fetchFn = cappedFetch(fetch);
    super(
      WHERE,
      metadata,
      issuer,
      (sdk, expectedIssuer) =>
        new sdk.CrossAppAccessProvider({
          clientId,
          clientSecret,
          clientName,
          fetchFn,
          expectedIssuer: expectedIssuer!,
          assertion: async (ctx) => {
            const ask = {
              audience: ctx.authorizationServerUrl,
              resource: ctx.resourceUrl,
              idToken: await currentIdToken(idToken),
              clientId: idp.clientId,
              clientSecret: idp.clientSecret,
              scope: ctx.scope ?? scope,
              fetchFn: ctx.fetchFn,
            };
            const grant = idp.tokenEndpoint
              ? await sdk.requestJwtAuthorizationGrant({ ...ask, tokenEndpoint: idp.tokenEndpoint })
              : await sdk.discoverAndRequestJwtAuthGrant({ ...ask, idpUrl: idp.issuer! });
            return grant.jwtAuthGrant;
          },
        }),
    );
  }
}

/**
 * Cross-App Access (Enterprise-Managed Authorization, SEP-990) for
 * `StreamableHttpServer({ url, auth })`: the person's ID token from the
 * enterprise IdP (`idToken`, a string or a function returning a current one)
 * is exchanged at the IdP (`idp`) for an ID-JAG, and that at the MCP server's
 * authorization server (`clientId` + `clientSecret`, HTTP Basic) for an
 * access token. No browser, no token file; tokens live in memory.
 *
 * Security: credentials go only to the authorization server named by
 * `issuer` (default: the first one the MCP server names, kept); responses
 * from the IdP are read capped at 1 MiB; secrets and the ID token are never
 * logged, printed, serialized or put in an error.
 *
 * @throws OptionsError (at once) naming the option: a missing `clientId`,
 *   `clientSecret`, `idToken` or `idp`, an `idp` with both or neither of
 *   `issuer`/`tokenEndpoint`, a non-https URL, a malformed `scope`, an unknown option.
 * @throws MissingPeerError (on the first token request) when `@modelcontextprotocol/client` is not installed.
 */
export function crossAppAccess(options: CrossAppAccessOptions): CrossAppAccessProvider {
  return new CrossAppAccessProvider(options);
}
