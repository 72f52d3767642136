/**
 * @module test/mcp-client/oauth-grants.test
 * The shipped machine grants, `clientCredentials` (client secret, private-key
 * JWT) and `crossAppAccess`, driven by the SDK v2's own `auth()` against a
 * real authorization server on 127.0.0.1 (node:http, in this process): the
 * token request each grant makes, the credentials bound to one authorization
 * server (a second one never sees them), and option checks that name the
 * option and never echo a secret.
 */
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { inspect } from "node:util";
import { auth, AuthorizationServerMismatchError } from "@modelcontextprotocol/client";
import { decodeProtectedHeader, jwtVerify } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { OptionsError } from "../../src/errors/index.js";
import { clientCredentials, crossAppAccess } from "../../src/mcp/index.js";

const SECRET = "s3cret-value-never-shown";

interface TokenRequest {
  readonly path: string;
  readonly authorization?: string;
  readonly body: URLSearchParams;
}

/** One authorization server + protected resource on 127.0.0.1: metadata, and a token endpoint that records each request. */
async function authServer(): Promise<{ url: string; issuer: string; requests: TokenRequest[]; server: Server }> {
  const requests: TokenRequest[] = [];
  const read = async (req: IncomingMessage) => {
    let body = "";
    for await (const c of req) body += c;
    return new URLSearchParams(body);
  };
  const server = createServer(async (req, res) => {
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const json = (v: unknown) => res.setHeader("content-type", "application/json").end(JSON.stringify(v));
    if (req.url === "/.well-known/oauth-protected-resource/mcp") return json({ resource: `${base}/mcp`, authorization_servers: [base] });
    if (req.url === "/.well-known/oauth-authorization-server") {
      return json({
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        response_types_supported: ["code"],
        grant_types_supported: [
          "client_credentials",
          "urn:ietf:params:oauth:grant-type:jwt-bearer",
          "urn:ietf:params:oauth:grant-type:token-exchange",
        ],
        token_endpoint_auth_methods_supported: ["client_secret_basic", "private_key_jwt"],
      });
    }
    if (req.url === "/token" || req.url === "/idp/token") {
      const body = await read(req);
      requests.push({ path: req.url, authorization: req.headers.authorization, body });
      if (req.url === "/idp/token")
        return json({ access_token: "id-jag-from-idp", issued_token_type: "urn:ietf:params:oauth:token-type:id-jag", token_type: "N_A" });
      return json({ access_token: `at-${requests.length}`, token_type: "Bearer", expires_in: 3600 });
    }
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return { url, issuer: url, requests, server };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});
async function started() {
  const as = await authServer();
  servers.push(as.server);
  return as;
}

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;

describe("clientCredentials", () => {
  it("a client secret: HTTP Basic at the token endpoint, grant_type client_credentials with the scope; the token kept", async () => {
    const as = await started();
    const provider = clientCredentials({ clientId: "svc", clientSecret: SECRET, scope: "mcp:read" });
    expect(await auth(provider, { serverUrl: `${as.url}/mcp` })).toBe("AUTHORIZED");
    expect(as.requests).toHaveLength(1);
    const [r] = as.requests;
    expect(r!.authorization).toBe(basic("svc", SECRET));
    expect(Object.fromEntries(r!.body)).toMatchObject({ grant_type: "client_credentials", scope: "mcp:read" });
    expect(provider.tokens()?.access_token).toBe("at-1");
    expect(provider.issuer).toBe(as.issuer);
  });

  for (const [label, pair, alg] of [
    ["an EC P-256 key (ES256 from the key)", () => generateKeyPairSync("ec", { namedCurve: "P-256" }), undefined],
    ["an RSA key with algorithm PS256", () => generateKeyPairSync("rsa", { modulusLength: 2048 }), "PS256"],
  ] as const) {
    it(`a private-key JWT, ${label}: a signed client assertion (iss = sub = clientId, aud = the issuer), no secret`, async () => {
      const as = await started();
      const { privateKey, publicKey } = pair() as { privateKey: KeyObject; publicKey: KeyObject };
      const privateKeyPem = privateKey.export({ format: "pem", type: label.includes("EC") ? "sec1" : "pkcs1" }).toString();
      const provider = clientCredentials({ clientId: "svc", privateKeyPem, ...(alg ? { algorithm: alg } : {}) });
      expect(await auth(provider, { serverUrl: `${as.url}/mcp` })).toBe("AUTHORIZED");
      const body = as.requests[0]!.body;
      expect(as.requests[0]!.authorization).toBeUndefined();
      expect(body.get("grant_type")).toBe("client_credentials");
      expect(body.get("client_assertion_type")).toBe("urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
      const jwt = body.get("client_assertion")!;
      expect(decodeProtectedHeader(jwt).alg).toBe(alg ?? "ES256");
      const { payload } = await jwtVerify(jwt, publicKey, { audience: as.issuer, issuer: "svc", subject: "svc" });
      expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(300);
    });
  }

  it("bound to one authorization server: when the MCP server later names another, the secret never reaches it", async () => {
    const first = await started();
    const second = await started();
    const provider = clientCredentials({ clientId: "svc", clientSecret: SECRET });
    await auth(provider, { serverUrl: `${first.url}/mcp` });
    const err = await auth(provider, { serverUrl: `${second.url}/mcp` }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthorizationServerMismatchError);
    expect(second.requests).toHaveLength(0);
    // With `issuer` given, even the first contact goes nowhere else.
    const pinned = clientCredentials({ clientId: "svc", clientSecret: SECRET, issuer: "https://auth.example.com" });
    expect(await auth(pinned, { serverUrl: `${first.url}/mcp` }).catch((e: unknown) => e)).toBeInstanceOf(AuthorizationServerMismatchError);
    expect(first.requests).toHaveLength(1);
  });

  it("bad options name the option and what is accepted, and never echo a secret", () => {
    const pem = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "pem", type: "pkcs8" }).toString();
    const cases: Array<[unknown, RegExp]> = [
      [{ clientSecret: SECRET }, /clientCredentials: 'clientId' is required/],
      [{ clientId: "a" }, /give exactly one of 'clientSecret' \(client_secret_basic\) or 'privateKeyPem' \(private_key_jwt\), got neither/],
      [{ clientId: "a", clientSecret: SECRET, privateKeyPem: pem }, /got both/],
      [{ clientId: "a", clientSecret: SECRET, algorithm: "ES256" }, /'algorithm' goes with 'privateKeyPem' only/],
      [
        { clientId: "a", privateKeyPem: `-----BEGIN PRIVATE KEY-----\n${SECRET}\n-----END PRIVATE KEY-----` },
        /'privateKeyPem' is not a PEM private key/,
      ],
      [
        { clientId: "a", privateKeyPem: pem, algorithm: "RS256" },
        /'algorithm' must be one of ES256 for this EC prime256v1 key, got "RS256"/,
      ],
      [{ clientId: "a", clientSecret: SECRET, scope: "a  b" }, /'scope' must be scope names separated by single spaces/],
      [
        { clientId: "a", clientSecret: SECRET, issuer: "http://auth.example.com" },
        /'issuer' must be an https URL \(or http on a loopback host\)/,
      ],
      [{ clientId: "a", clientSecret: 42 }, /'clientSecret' must be a non-empty string, got a value of type number/],
      [
        { clientId: "a", clientSecret: SECRET, secret: SECRET },
        /unknown option 'secret'\. Accepted options: clientId, clientSecret, privateKeyPem, algorithm, scope, issuer, clientName/,
      ],
    ];
    for (const [options, message] of cases) {
      const err = (() => {
        try {
          clientCredentials(options as never);
        } catch (e) {
          return e as OptionsError;
        }
      })();
      expect(err, JSON.stringify(message.source)).toBeInstanceOf(OptionsError);
      expect(err!.message).toMatch(message);
      expect(err!.message).not.toContain(SECRET);
      expect(err!.message).not.toContain("MHcC"); // no key material
    }
  });

  it("the provider shows no secret to inspect, JSON or a spread", () => {
    const pem = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "pem", type: "pkcs8" }).toString();
    for (const p of [
      clientCredentials({ clientId: "svc", clientSecret: SECRET }),
      clientCredentials({ clientId: "svc", privateKeyPem: pem }),
    ]) {
      const shown = [inspect(p, { depth: 10, showHidden: true }), JSON.stringify(p), JSON.stringify({ ...p })].join("\n");
      expect(shown).not.toContain(SECRET);
      expect(shown).not.toContain(pem.split("\n")[1]!);
    }
  });
});

describe("crossAppAccess", () => {
  it("exchanges the ID token at the IdP for an ID-JAG (audience = the MCP issuer, resource = the MCP server), then the ID-JAG for an access token with HTTP Basic", async () => {
    const as = await started();
    let asked = 0;
    const provider = crossAppAccess({
      clientId: "mcp-client",
      clientSecret: SECRET,
      idp: { tokenEndpoint: `${as.url}/idp/token`, clientId: "idp-client" },
      idToken: () => `id-token-${++asked}`,
      scope: "chat.read",
    });
    expect(await auth(provider, { serverUrl: `${as.url}/mcp` })).toBe("AUTHORIZED");
    const [exchange, bearer] = as.requests;
    expect(exchange!.path).toBe("/idp/token");
    expect(Object.fromEntries(exchange!.body)).toMatchObject({
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      subject_token: "id-token-1",
      subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
      requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
      audience: as.issuer,
      resource: `${as.url}/mcp`,
      client_id: "idp-client",
    });
    expect(bearer!.path).toBe("/token");
    expect(bearer!.authorization).toBe(basic("mcp-client", SECRET));
    expect(Object.fromEntries(bearer!.body)).toMatchObject({
      grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
      assertion: "id-jag-from-idp",
      scope: "chat.read",
    });
    expect(provider.tokens()?.access_token).toBe("at-2");
    expect(inspect(provider, { depth: 10, showHidden: true }) + JSON.stringify(provider)).not.toContain(SECRET);
  });

  it("bad options name the option; an idToken function that returns nothing fails the exchange naming it", async () => {
    const ok = { clientId: "c", clientSecret: SECRET, idp: { issuer: "https://idp.example.com", clientId: "i" }, idToken: "t" };
    expect(() => crossAppAccess({ ...ok, idp: { clientId: "i" } } as never)).toThrow(
      /crossAppAccess: 'idp' needs exactly one of 'issuer' \(its token endpoint is discovered\) or 'tokenEndpoint', got neither/,
    );
    expect(() => crossAppAccess({ ...ok, idp: undefined } as never)).toThrow(/'idp' is required/);
    expect(() => crossAppAccess({ ...ok, clientSecret: undefined } as never)).toThrow(
      /'clientSecret' must be a non-empty string, got nothing/,
    );
    expect(() => crossAppAccess({ ...ok, idToken: "" })).toThrow(/'idToken' must be a non-empty string, got an empty string/);
    expect(() => crossAppAccess({ ...ok, idp: { ...ok.idp, secret: "s" } } as never)).toThrow(
      "crossAppAccess: 'idp': unknown option 'secret'. Accepted options: issuer, tokenEndpoint, clientId, clientSecret",
    );
    expect(() => crossAppAccess({ ...ok, id_token: "t" } as never)).toThrow(
      "crossAppAccess: unknown option 'id_token'. Accepted options: clientId, clientSecret, idp, idToken, scope, issuer, clientName",
    );
    expect(() => crossAppAccess({ ...ok, idp: { ...ok.idp, issuer: "http://idp.example.com" } })).toThrow(
      /'idp.issuer' must be an https URL/,
    );
    const as = await started();
    const provider = crossAppAccess({ ...ok, idp: { tokenEndpoint: `${as.url}/idp/token`, clientId: "i" }, idToken: () => "" });
    await expect(auth(provider, { serverUrl: `${as.url}/mcp` })).rejects.toThrow(
      /crossAppAccess: 'idToken\(\) result' must be a non-empty string, got an empty string/,
    );
    expect(as.requests).toHaveLength(0);
  });
});
