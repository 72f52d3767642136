/**
 * @module mcp/oauth/oauth-provider
 * The shipped `OAuthClientProvider`: what the SDK's client auth functions
 * (discovery, registration, authorization code + PKCE, refresh, step-up)
 * need from a client, and nothing they already do. It keeps the login per
 * server URL in a 0600 file (the SDK's `issuer` stamps and discovery state
 * round-tripped verbatim), takes the redirect back on a loopback route and
 * hands all of it to the SDK (which checks `iss` against the authorization
 * server the login went to), and lets `openUrl` decide how the authorization
 * URL reaches a person.
 */
import { randomBytes } from "node:crypto";
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { OptionsError } from "../../errors/options.error.js";
import { checkOptions, opt } from "../../options/option-checks.js";
import { isLoopbackHost } from "../../listener/loopback-checks.js";
import { getLogger } from "../../util/logger.js";
import { visible } from "../../util/visible-text.js";
import { clientSdk } from "../peers/sdk-client.js";
import { OAuthLoginRequiredError, isCallbackFailure, oauthCallbackError } from "./oauth.error.js";
import { DEFAULT_CALLBACK_TIMEOUT_MS, RedirectListener } from "./redirect-listener.js";
import { defaultTokenDir, TokenFile, type StoredLogin } from "./token-store.js";

/** Options of `oauthProvider()`. */
export interface OAuthProviderOptions {
  /**
   * How the authorization URL reaches a person. Default: open it in a
   * browser (the optional `open` package, when installed and there is a
   * display, given a one-time loopback link to it so the URL is never in a
   * process's argv), else print it to stderr. A test or a headless worker
   * passes its own (e.g. one that fetches the URL and follows its
   * redirects). Only an `https:` URL, or `http:` on a loopback host, is
   * handed to it; another scheme chosen by the server (`file:`, `vscode:`)
   * is printed with a warning instead.
   */
  readonly openUrl?: (url: URL) => void | Promise<void>;
  /**
   * Where the per-server token files go. Default `$XDG_CONFIG_HOME/arc-agentkit/oauth`,
   * else `~/.config/arc-agentkit/oauth` (`%APPDATA%\arc-agentkit\oauth` on Windows). A
   * missing directory is created 0700; an existing one is used as it is
   * (never chmodded) and refused (`OptionsError`) when other users can
   * write it or it belongs to another user.
   */
  readonly tokenDir?: string;
  /** `client_name` in dynamic registration. Default `"arc-agentkit"`. */
  readonly clientName?: string;
  /** Scopes asked for when neither the server's challenge nor its metadata names any. */
  readonly scopes?: readonly string[];
  /** A pre-registered client (the server offers no registration): its id, and its secret for a confidential client. */
  readonly client?: { readonly clientId: string; readonly clientSecret?: string };
  /** An https URL of this client's ID metadata document (used when the authorization server supports them). */
  readonly clientMetadataUrl?: string;
  /** How long a login waits for the redirect back, in ms. Default 300 000 (5 minutes). */
  readonly callbackTimeoutMs?: number;
  /**
   * Accept authorization-server metadata whose `issuer` is not the URL it was
   * fetched from (skips the RFC 8414 §3.3 check; default false).
   * Security-weakening: only for a server known to publish a mismatched
   * issuer, such as a 2025-03-26-era MCP server that is its own
   * authorization server and names a path (`https://host/oauth`) as issuer.
   */
  readonly allowIssuerMismatch?: boolean;
}

/** Print the URL for a person to open (the fallback of the default `openUrl`). */
function printUrl(url: URL): void {
  process.stderr.write(`To authorize, open this URL in a browser:\n\n  ${url.href}\n\n`);
}

/** The longest refused URL printed whole; a longer one is cut in the middle (the serialized URL is ASCII: no control characters). */
const MAX_REFUSED_URL_CHARS = 400;

/**
 * May this authorization URL be handed to an opener? `https:`, or `http:`
 * on a loopback host (a local authorization server). Anything else a server
 * names (`file:`, `vscode:`, plain http elsewhere) would reach the OS opener
 * as the server chose.
 */
function isOpenableUrl(url: URL): boolean {
  return url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname));
}

/** Tell the person an authorization URL was not opened, and show it (bounded) for them to judge. */
function refuseToOpen(url: URL, serverUrl: string | undefined): void {
  const href = url.href.length > MAX_REFUSED_URL_CHARS ? `${url.href.slice(0, 300)}…${url.href.slice(-80)}` : url.href;
  process.stderr.write(
    `agentkit: the authorization server of ${serverUrl ?? "this MCP server"} sent a '${url.protocol}' URL; not ` +
      `opening it: only https URLs (and http on a loopback host) are opened. ` +
      `Open it yourself only if you trust it:\n\n  ${href}\n\n`,
  );
}

/**
 * The default `openUrl`: a browser through the optional `open` package when
 * there is a display, else the URL printed. The browser launcher gets
 * `launch`, a one-time loopback link that redirects to `url`: the URL's
 * `state` and PKCE challenge stay out of every process's argv.
 */
async function openInBrowser(url: URL, launch: string): Promise<void> {
  const display = process.platform === "darwin" || process.platform === "win32" || !!process.env.DISPLAY || !!process.env.WAYLAND_DISPLAY;
  if (display) {
    try {
      const open = (await import("open" as string)) as { default: (target: string) => Promise<unknown> };
      await open.default(launch);
      process.stderr.write(`Opened a browser to authorize. If it did not appear, open:\n  ${url.href}\n`);
      return;
    } catch {
      // no `open` package, or no browser: print it
    }
  }
  printUrl(url);
}

/** The options of `oauthProvider()`, declared once. */
const OAUTH_PROVIDER_OPTIONS = {
  openUrl: opt.fn<NonNullable<OAuthProviderOptions["openUrl"]>>("(url: URL) => void | Promise<void>"),
  tokenDir: opt.string("a non-empty path", true),
  clientName: opt.string("a non-empty string", true),
  scopes: opt.that<readonly string[]>(
    (v) => Array.isArray(v) && v.every((x) => typeof x === "string" && x !== "" && !/\s/.test(x)),
    "an array of scope names without spaces",
  ),
  client: opt.object({
    clientId: opt.nonEmptyString("the pre-registered client's id"),
    clientSecret: opt.string("a non-empty string", true),
  }),
  clientMetadataUrl: opt.that<string>((v) => typeof v === "string" && /^https:\/\/[^/]+\/.+/.test(v), "an https URL with a path"),
  callbackTimeoutMs: opt.that<number>((v) => typeof v === "number" && Number.isFinite(v) && v > 0, "a positive number of milliseconds"),
  allowIssuerMismatch: opt.that<boolean>((v) => typeof v === "boolean", "true or false (default false)"),
} as const;

/**
 * The shipped OAuth client. Made by `oauthProvider()`; a `StreamableHttpServer`
 * given it binds a copy to its URL (`forServer`) and starts its redirect
 * listener (`start`) before connecting. Tokens and the registration live in
 * the server's token file (never logged, never in argv); the PKCE verifier and
 * `state` live in memory only.
 *
 * When a refresh token is refused (revoked, expired) the stored tokens are
 * dropped and `OAuthLoginRequiredError` is thrown: a run does not start a
 * login by surprise; `agentkit login <url>` (or `login()`) does.
 */
export class AgentkitOAuthProvider implements OAuthClientProvider {
  private readonly file?: TokenFile;
  private login: StoredLogin;
  private redirect?: RedirectListener;
  private verifier?: string;
  private currentState?: string;
  private pending?: Promise<URLSearchParams>;
  /** The issuer the SDK stamped on a pre-registered client (kept in memory: the option itself is never rewritten). */
  private preIssuer?: string;
  private exchanging = false;

  /** @internal Use `oauthProvider()`. */
  constructor(
    readonly options: OAuthProviderOptions,
    /** The MCP server URL this copy is bound to (undefined: not bound yet). */
    readonly serverUrl?: string,
  ) {
    checkOptions(options, "oauthProvider", OAUTH_PROVIDER_OPTIONS);
    this.file = serverUrl === undefined ? undefined : new TokenFile(options.tokenDir ?? defaultTokenDir(), serverUrl);
    this.login = this.file?.read() ?? { serverUrl: serverUrl ?? "" };
  }

  /** A copy bound to `serverUrl`, with that server's token file. */
  forServer(serverUrl: string): AgentkitOAuthProvider {
    return new AgentkitOAuthProvider(this.options, new URL(serverUrl).href);
  }

  /** Where this server's tokens are kept (undefined until bound). */
  get tokenFile(): string | undefined {
    return this.file?.path;
  }

  /** Start the redirect listener (the redirect URL is known from here on). Idempotent. */
  async start(): Promise<void> {
    this.bound();
    this.redirect ??= await RedirectListener.start();
  }

  /** Stop the redirect listener. Idempotent. */
  async stop(): Promise<void> {
    const r = this.redirect;
    this.redirect = undefined;
    await r?.close();
  }

  /** `await using` support: the same as `stop()`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  /**
   * Forget the stored tokens and discovery state (the registration is kept),
   * so the next connection discovers the authorization server again and logs
   * in afresh (what `agentkit login` does first).
   */
  forgetTokens(): void {
    this.login = { ...this.login, tokens: undefined, discovery: undefined };
    this.persist();
  }

  /** The loopback redirect URI (`http://127.0.0.1:<port>/oauth/callback`) once `start()` ran. */
  get redirectUrl(): string | undefined {
    return this.redirect?.url;
  }

  /** The `clientMetadataUrl` option (a client ID metadata document), if any. */
  get clientMetadataUrl(): string | undefined {
    return this.options.clientMetadataUrl;
  }

  /** What dynamic registration sends: a public client (no secret) using code + refresh, with this redirect URI. */
  get clientMetadata(): OAuthClientMetadata {
    const scope = this.options.scopes?.join(" ");
    return {
      client_name: this.options.clientName ?? "arc-agentkit",
      redirect_uris: this.redirect ? [this.redirect.url] : [],
      response_types: ["code"],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "none",
      ...(scope ? { scope } : {}),
    };
  }

  /** A fresh random `state` for the next authorization (checked when the redirect comes back). */
  state(): string {
    return (this.currentState = randomBytes(16).toString("base64url"));
  }

  /**
   * The pre-registered client (stamped, once the SDK bound it, with its
   * authorization server's issuer), else the stored registration as it was
   * saved, `issuer` stamp included (none when it was made for another
   * redirect URI).
   */
  clientInformation(): StoredOAuthClientInformation | undefined {
    const pre = this.options.client;
    if (pre)
      return {
        client_id: pre.clientId,
        ...(pre.clientSecret ? { client_secret: pre.clientSecret } : {}),
        ...(this.preIssuer ? { issuer: this.preIssuer } : {}),
      };
    const c = this.login.client as (StoredOAuthClientInformation & { redirect_uris?: string[] }) | undefined;
    // A dynamic registration made for another redirect port is not reused: register again.
    if (c?.redirect_uris && this.redirect && !c.redirect_uris.includes(this.redirect.url)) return undefined;
    return c;
  }

  /**
   * Keep a new registration in the token file, verbatim (a pre-registered client is never written: only its issuer
   * stamp is kept, in memory).
   */
  saveClientInformation(info: StoredOAuthClientInformation): void {
    if (this.options.client) {
      this.preIssuer ??= info.issuer;
      return;
    }
    this.login = { ...this.login, client: info };
    this.persist();
  }

  /** The stored tokens, as they were saved (`issuer` stamp included: the SDK refuses them for another authorization server). */
  tokens(): StoredOAuthTokens | undefined {
    return this.login.tokens;
  }

  /** Keep new tokens in the token file (0600), verbatim. */
  saveTokens(tokens: StoredOAuthTokens): void {
    this.login = { ...this.login, tokens };
    this.persist();
  }

  /**
   * What discovery found last time (kept in the token file, so a run does not
   * discover again, and the redirect back is checked against the
   * authorization server the login went to). `agentkit login` forgets it.
   */
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.login.discovery;
  }

  /** Keep what discovery found, verbatim, in the token file. */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.login = { ...this.login, discovery: state };
    this.persist();
  }

  /**
   * Start waiting for the redirect back, then hand the authorization URL to
   * `openUrl` (printed if that fails). Only an `https:` URL, or `http:` on a
   * loopback host, is handed over; any other scheme is printed with a
   * warning and never opened. The default opener gives the browser a
   * one-time loopback link instead of the URL (kept out of argv); the
   * redirect back is taken only from this user's connections.
   */
  async redirectToAuthorization(url: URL): Promise<void> {
    const state = this.currentState ?? url.searchParams.get("state") ?? "";
    if (!this.redirect) throw oauthCallbackError("the OAuth redirect listener is not running (call start() first)");
    // Waiting before the URL goes out: a headless openUrl may complete the whole redirect before it returns.
    this.pending = this.redirect.expect(state, this.options.callbackTimeoutMs ?? DEFAULT_CALLBACK_TIMEOUT_MS);
    // Swallow kept: marks the redirect as handled until it is awaited; the awaiting caller sees the failure.
    this.pending.catch(() => {});
    if (!isOpenableUrl(url)) return refuseToOpen(url, this.serverUrl);
    try {
      if (this.options.openUrl) await this.options.openUrl(url);
      else await openInBrowser(url, this.redirect.launchLink(url));
    } catch (err) {
      getLogger().warn(
        `OAuth for ${this.serverUrl}: openUrl failed (${err instanceof Error ? err.message : String(err)}); open the URL by hand`,
      );
      printUrl(url);
    }
  }

  /**
   * The redirect back of the login just started (`redirectToAuthorization`):
   * its query parameters (`code` and `iss`, or `error`), its `state` already
   * checked. Nothing in it is trusted yet: `finishLogin` hands it to the SDK.
   *
   * @throws AgentkitError (code `oauth_callback`) when no login is in progress, or nobody finished in time.
   */
  async authorizationResponse(): Promise<URLSearchParams> {
    const p = this.pending;
    this.pending = undefined;
    if (!p) throw oauthCallbackError(`OAuth for ${this.serverUrl}: no authorization is in progress`);
    return p;
  }

  /**
   * Wait for the redirect back and give its parameters to `finishAuth` (the
   * transport's), which checks `iss` against the authorization server the
   * login went to (RFC 9207) before it exchanges the code or reads an
   * `error`. A refused code is not mistaken for a refused refresh token.
   *
   * @throws AgentkitError (code `oauth_callback`) when the redirect named another authorization
   *   server (`iss`), carried no code (the server's `error`, shown escaped and
   *   bounded), or never came; other errors of the exchange as they are.
   */
  async finishLogin(finishAuth: (params: URLSearchParams) => Promise<void>): Promise<void> {
    const params = await this.authorizationResponse();
    this.exchanging = true;
    try {
      await finishAuth(params);
      if (!params.get("code"))
        throw oauthCallbackError(`OAuth for ${this.serverUrl}: the authorization server redirected back without a code`);
    } catch (err) {
      throw await callbackError(err, params, this.serverUrl);
    } finally {
      this.exchanging = false;
    }
  }

  /** Keep the PKCE verifier (in memory only). */
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  /** The PKCE verifier of the authorization in progress. */
  codeVerifier(): string {
    if (!this.verifier) throw oauthCallbackError(`OAuth for ${this.serverUrl}: no PKCE code verifier (no authorization was started)`);
    return this.verifier;
  }

  /**
   * Drop what the SDK says is no longer valid. The SDK calls `"client"` then
   * `"tokens"` for a refused client, `"tokens"` for a refused grant; a
   * refused refresh token (outside a code exchange) then throws
   * `OAuthLoginRequiredError`: a run does not start a login by surprise.
   */
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    const hadRefresh = !!this.login.tokens?.refresh_token;
    if (scope === "all" || scope === "client") this.login = { ...this.login, client: undefined };
    if (scope === "all" || scope === "client") this.preIssuer = undefined;
    if (scope === "all" || scope === "tokens") this.login = { ...this.login, tokens: undefined };
    if (scope === "all" || scope === "discovery") this.login = { ...this.login, discovery: undefined };
    if (scope === "all" || scope === "verifier") this.verifier = undefined;
    this.persist();
    if (scope === "tokens" && hadRefresh && !this.exchanging) {
      throw new OAuthLoginRequiredError(
        this.serverUrl ?? "",
        "the authorization server refused the stored refresh token (revoked or expired)",
      );
    }
  }

  private bound(): TokenFile {
    if (!this.file)
      throw new OptionsError(
        "oauthProvider",
        "serverUrl",
        "oauthProvider: this provider is not bound to a server; pass it as StreamableHttpServer({ url, auth }) (or call forServer(url))",
      );
    return this.file;
  }

  private persist(): void {
    this.bound().write(this.login);
  }
}

/** Printable and bounded: a value from the redirect back, shown to a person. */
const shown = (v: string | null): string => visible((v ?? "").slice(0, 200));

/** What a failed `finishAuth` means to a person: a mix-up (`iss`), a refusal (`error`), or the error as it is. */
async function callbackError(err: unknown, params: URLSearchParams, serverUrl: string | undefined): Promise<unknown> {
  if (isCallbackFailure(err)) return err;
  const sdk = await clientSdk();
  if (err instanceof sdk.IssuerMismatchError) {
    return oauthCallbackError(
      `OAuth for ${serverUrl}: the redirect back came from another authorization server ('iss' ` +
        `${JSON.stringify(shown(params.get("iss")))}) than the one this login went to; refused, nothing was ` +
        `exchanged (RFC 9207)`,
      { cause: err },
    );
  }
  if (!params.get("code")) {
    const why = params.get("error")
      ? `${shown(params.get("error"))}${params.get("error_description") ? `: ${shown(params.get("error_description"))}` : ""}`
      : "no authorization code";
    return oauthCallbackError(`OAuth for ${serverUrl}: the authorization server redirected back without a code (${why})`, {
      cause: err,
    });
  }
  return err;
}

/**
 * The shipped OAuth client provider for `StreamableHttpServer({ url, auth })`
 * (`auth: "oauth"` is `oauthProvider()`): discovery, registration
 * (pre-registered `client`, `clientMetadataUrl`, or dynamic), authorization
 * code + PKCE through a loopback redirect on 127.0.0.1, refresh and scope
 * step-up are the SDK's; this keeps the state and reaches the person.
 *
 * @throws OptionsError naming the option and what is accepted: an option of
 *   the wrong type or shape, or one it does not know.
 */
export function oauthProvider(options: OAuthProviderOptions = {}): AgentkitOAuthProvider {
  return new AgentkitOAuthProvider(options);
}
