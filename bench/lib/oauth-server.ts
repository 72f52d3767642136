/**
 * @module bench/lib/oauth-server
 * A real, small OAuth 2.x authorization server for tests and benchmarks, on 127.0.0.1:
 * RFC 8414 metadata, a JWKS endpoint and a token endpoint (client_credentials
 * only, RFC 8707 `resource` honoured; /authorize refuses every request), issuing RFC 9068 JWT access tokens
 * signed with a key made for this server alone (jose). `mint()` signs tokens
 * directly, so a test can hold a wrong-audience, expired, not-yet-valid,
 * scope-limited or foreign-signed token.
 *
 *   await using as = await startAuthServer({ clients: [{ id: "ci", secret, scopes: ["deploy:read"] }] });
 *   const token = await as.mint({ audience: resource, scopes: ["deploy:read"] });
 */
import { randomBytes, timingSafeEqual, createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from "jose";

/** A registered client of the test authorization server. */
export interface TestClient {
  readonly id: string;
  readonly secret: string;
  /** The scopes it may be granted (a request for more is cut down to these; none asked: all of these). */
  readonly scopes: readonly string[];
}

/** What `mint()` signs. Every field has a good default, so a test names only what it breaks. */
export interface MintOptions {
  /** `aud` (default: the server's `defaultAudience`). */
  readonly audience?: string | readonly string[];
  /** `scope`, space-joined (default: none). */
  readonly scopes?: readonly string[];
  /** Seconds from now until `exp` (default 300; negative: already expired). `null`: no `exp` claim at all. */
  readonly expiresInSec?: number | null;
  /** Seconds from now until `nbf` (default: no `nbf`). */
  readonly notBeforeInSec?: number;
  /** `client_id` (default "test-client"). */
  readonly clientId?: string;
  /** `sub` (default: the client id). */
  readonly subject?: string;
  /** `iss` (default: this server's issuer). */
  readonly issuer?: string;
  /** Sign with a key this server does not publish (the signature check must refuse it). */
  readonly foreignKey?: boolean;
  /** The JWS header's `typ` (default `at+jwt`, RFC 9068); `null`: no `typ` at all. */
  readonly type?: string | null;
}

/** A running test authorization server. */
export interface TestAuthServer extends AsyncDisposable {
  /** The issuer identifier, `http://127.0.0.1:<port>` (no trailing slash). */
  readonly issuer: string;
  readonly jwksUri: string;
  readonly tokenEndpoint: string;
  /** Requests seen per path (`/token`, `/jwks`, the metadata path). */
  readonly hits: Readonly<Record<string, number>>;
  /** Tokens the token endpoint issued. */
  readonly issued: number;
  /** Sign a token now (see MintOptions). */
  mint(options?: MintOptions): Promise<string>;
  close(): Promise<void>;
}

const ALG = "ES256";

function digest(s: string): Buffer {
  return createHash("sha256").update(s).digest();
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers });
  res.end(JSON.stringify(body));
}

async function formBody(req: IncomingMessage): Promise<URLSearchParams> {
  let text = "";
  for await (const chunk of req) {
    text += String(chunk);
    if (text.length > 65_536) throw new Error("body too large");
  }
  return new URLSearchParams(text);
}

/** The client a token request authenticates as (client_secret_basic or client_secret_post), or undefined. */
function authenticate(req: IncomingMessage, form: URLSearchParams, clients: readonly TestClient[]): TestClient | undefined {
  let id = form.get("client_id") ?? undefined;
  let secret = form.get("client_secret") ?? undefined;
  const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? "");
  if (basic) {
    const [u, p] = Buffer.from(basic[1]!, "base64").toString("utf8").split(":");
    id = decodeURIComponent(u ?? "");
    secret = decodeURIComponent(p ?? "");
  }
  const client = clients.find((c) => c.id === id);
  if (!client || secret === undefined) return undefined;
  return timingSafeEqual(digest(client.secret), digest(secret)) ? client : undefined;
}

/** `doc` without the fields named (an incomplete metadata document, as some issuers serve). */
function withoutFields(fields: readonly string[], doc: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(doc).filter(([k]) => !fields.includes(k)));
}

/**
 * Start the server on 127.0.0.1 (a free port). `defaultAudience` is what
 * `mint()` and a token request without `resource` put in `aud`;
 * `tokenLifetimeSec` is the token endpoint's `expires_in` (default 300);
 * `omitMetadata` names RFC 8414 fields its metadata leaves out.
 */
export async function startAuthServer(
  options: { clients?: readonly TestClient[]; defaultAudience?: string; tokenLifetimeSec?: number; omitMetadata?: readonly string[] } = {},
): Promise<TestAuthServer> {
  const clients = options.clients ?? [];
  const { privateKey, publicKey } = await generateKeyPair(ALG, { extractable: true });
  const foreign = await generateKeyPair(ALG);
  const kid = randomBytes(8).toString("hex");
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ALG, use: "sig" };
  const hits: Record<string, number> = {};
  let issued = 0;
  let issuer = "";

  const sign = (o: MintOptions, key: CryptoKey, keyId: string): Promise<string> => {
    const now = Math.floor(Date.now() / 1000);
    const clientId = o.clientId ?? "test-client";
    const claims: Record<string, unknown> = { client_id: clientId, jti: randomBytes(12).toString("hex") };
    if (o.scopes?.length) claims.scope = o.scopes.join(" ");
    if (o.notBeforeInSec !== undefined) claims.nbf = now + o.notBeforeInSec;
    const jwt = new SignJWT(claims)
      .setProtectedHeader({ alg: ALG, kid: keyId, ...(o.type === null ? {} : { typ: o.type ?? "at+jwt" }) })
      .setIssuer(o.issuer ?? issuer)
      .setSubject(o.subject ?? clientId)
      .setIssuedAt(now)
      .setAudience((o.audience ?? options.defaultAudience ?? issuer) as string | string[]);
    if (o.expiresInSec !== null) jwt.setExpirationTime(now + (o.expiresInSec ?? 300));
    return jwt.sign(key);
  };

  const token = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const form = await formBody(req);
    if (form.get("grant_type") !== "client_credentials")
      return json(res, 400, { error: "unsupported_grant_type", error_description: "only client_credentials is supported" });
    const client = authenticate(req, form, clients);
    if (!client) return json(res, 401, { error: "invalid_client" }, { "www-authenticate": 'Basic realm="test-as"' });
    const asked = (form.get("scope") ?? "").split(" ").filter(Boolean);
    const scopes = asked.length ? asked.filter((s) => client.scopes.includes(s)) : [...client.scopes];
    const lifetime = options.tokenLifetimeSec ?? 300;
    const resource = form.getAll("resource");
    const access = await sign(
      {
        clientId: client.id,
        scopes,
        expiresInSec: lifetime,
        ...(resource.length ? { audience: resource.length === 1 ? resource[0]! : resource } : {}),
      },
      privateKey,
      kid,
    );
    issued++;
    json(res, 200, { access_token: access, token_type: "Bearer", expires_in: lifetime, scope: scopes.join(" ") });
  };

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    hits[path] = (hits[path] ?? 0) + 1;
    if (req.method === "GET" && path === "/.well-known/oauth-authorization-server") {
      return json(
        res,
        200,
        withoutFields(options.omitMetadata ?? [], {
          issuer,
          // Required by RFC 8414 (and the SDK's schema) though this server grants no code: /authorize answers 400.
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          grant_types_supported: ["client_credentials"],
          token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
          response_types_supported: ["token"],
          scopes_supported: [...new Set(clients.flatMap((c) => c.scopes))],
        }),
      );
    }
    if (path === "/authorize")
      return json(res, 400, { error: "unsupported_response_type", error_description: "this test server grants client_credentials only" });
    if (req.method === "GET" && path === "/jwks") return json(res, 200, { keys: [publicJwk] });
    if (req.method === "POST" && path === "/token") {
      token(req, res).catch((err: unknown) => json(res, 400, { error: "invalid_request", error_description: (err as Error).message }));
      return;
    }
    json(res, 404, { error: "not_found" });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = (): Promise<void> =>
    new Promise((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    tokenEndpoint: `${issuer}/token`,
    hits,
    get issued() {
      return issued;
    },
    mint: (o = {}) => (o.foreignKey ? sign(o, foreign.privateKey, kid) : sign(o, privateKey, kid)),
    close,
    [Symbol.asyncDispose]: close,
  };
}
