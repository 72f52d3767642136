/**
 * jwtVerifier against a real local authorization server (test/helpers/oauth-server):
 * keys discovered through RFC 8414 metadata and a JWKS over HTTP, tokens from
 * its token endpoint (client_credentials) and minted broken on purpose.
 */
import { rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { OptionsError } from "../../src/errors/index.js";
import { jwtVerifier } from "../../src/express/index.js";
import { startAuthServer } from "../helpers/oauth-server.js";
import { runIn, scratchProject } from "../helpers/scratch-project.js";
import { NODE, ROOT } from "../mcp-client/support.js";
import { AccessTokenError } from "../../src/index.js";

const RESOURCE = "https://tools.example.com/mcp";

/** The refusal `verify(token)` rejects with (fails the test when it resolves). */
async function refusalOf(verify: (t: string) => Promise<unknown>, token: string): Promise<AccessTokenError> {
  const err = await verify(token).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AccessTokenError);
  return err as AccessTokenError;
}

describe("jwtVerifier", () => {
  it("accepts a token from the token endpoint (client_credentials, RFC 8707 resource) with keys found through the issuer's metadata", async () => {
    await using as = await startAuthServer({
      clients: [{ id: "ci-bot", secret: "s3cret-value", scopes: ["deploy:read", "deploy:write"] }],
    });
    const res = await fetch(as.tokenEndpoint, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${Buffer.from("ci-bot:s3cret-value").toString("base64")}`,
      },
      body: new URLSearchParams({ grant_type: "client_credentials", scope: "deploy:read", resource: RESOURCE }),
    });
    expect(res.status).toBe(200);
    const { access_token } = (await res.json()) as { access_token: string };
    const verify = jwtVerifier({ issuer: as.issuer, audience: RESOURCE });
    const info = await verify(access_token);
    expect(info).toMatchObject({
      clientId: "ci-bot",
      scopes: ["deploy:read"],
      resource: RESOURCE,
      subject: "ci-bot",
      extra: { issuer: as.issuer },
    });
    expect(info.expiresAt).toBeGreaterThan(Date.now() / 1000);
    // Keys fetched once, then cached.
    await verify(await as.mint({ audience: RESOURCE }));
    expect(as.hits["/.well-known/oauth-authorization-server"]).toBe(1);
    expect(as.hits["/jwks"]).toBe(1);
  });

  it("refuses wrong audience, expired, not-yet-valid, foreign-signed, other-issuer and exp-less tokens, each with its reason", async () => {
    await using as = await startAuthServer();
    const verify = jwtVerifier({ issuer: as.issuer, audience: RESOURCE, jwksUri: as.jwksUri, clockToleranceSec: 0 });
    expect((await refusalOf(verify, await as.mint({ audience: "https://other.example.com/mcp" }))).reason).toBe("audience");
    expect((await refusalOf(verify, await as.mint({ audience: RESOURCE, expiresInSec: -60 }))).reason).toBe("expired");
    expect((await refusalOf(verify, await as.mint({ audience: RESOURCE, notBeforeInSec: 600 }))).reason).toBe("not_yet_valid");
    expect((await refusalOf(verify, await as.mint({ audience: RESOURCE, foreignKey: true }))).reason).toBe("signature");
    expect((await refusalOf(verify, await as.mint({ audience: RESOURCE, issuer: "http://127.0.0.1:1" }))).reason).toBe("issuer");
    expect((await refusalOf(verify, await as.mint({ audience: RESOURCE, expiresInSec: null }))).reason).toBe("claims");
    const malformed = await refusalOf(verify, "not-a-jwt");
    expect(malformed).toMatchObject({ code: "invalid_token", reason: "malformed" });
    // The good one still passes (the checks above are not a verifier that refuses everything).
    await expect(verify(await as.mint({ audience: [RESOURCE, "https://x.example"], scopes: ["a", "b"] }))).resolves.toMatchObject({
      resource: RESOURCE,
      scopes: ["a", "b"],
    });
  });

  it("an unreachable issuer refuses the token (keys_unavailable), naming the issuer", async () => {
    const as = await startAuthServer();
    const issuer = as.issuer;
    const token = await as.mint({ audience: RESOURCE });
    await as.close();
    const verify = jwtVerifier({ issuer, audience: RESOURCE });
    const err = await refusalOf(verify, token);
    expect(err.reason).toBe("keys_unavailable");
    expect(err.message).toContain(`cannot find the signing keys of ${issuer}`);
  });

  it("checks its options when made, naming the option and what is accepted", () => {
    const bad: Array<[unknown, string, RegExp]> = [
      [{ issuer: "http://auth.example.com", audience: RESOURCE }, "issuer", /https URL \(http only on 127\.0\.0\.1/],
      [{ issuer: "https://auth.example.com", audience: "" }, "audience", /resource URL/],
      [{ issuer: "https://auth.example.com", audience: RESOURCE, algorithms: ["HS256"] }, "algorithms", /'none' and HS\* are refused/],
      [{ issuer: "https://auth.example.com", audience: RESOURCE, clockToleranceSec: 3600 }, "clockToleranceSec", /0 to 300/],
      [{ issuer: "https://auth.example.com", audience: RESOURCE, jwks: "x" }, "jwks", /unknown option 'jwks'/],
    ];
    for (const [options, option, message] of bad) {
      let err: unknown;
      try {
        jwtVerifier(options as never);
      } catch (e) {
        err = e;
      }
      expect(err, option).toBeInstanceOf(OptionsError);
      expect((err as OptionsError).option).toBe(option);
      expect((err as Error).message).toMatch(message);
    }
  });

  it("without jose installed: the entry imports, and jwtVerifier() throws MissingPeerError naming the install line (built package)", () => {
    const scratch = scratchProject(ROOT, ["jose"]);
    try {
      const out = runIn<Record<string, unknown>>(
        NODE,
        scratch,
        `
        const { jwtVerifier } = await import("arc-agentkit/express");
        let error;
        try { jwtVerifier({ issuer: "https://auth.example.com", audience: "https://tools.example.com/mcp" }); }
        catch (e) { error = { name: e.name, code: e.code, installLine: e.installLine, message: e.message }; }
        console.log(JSON.stringify({ error }));`,
      );
      expect(out.error).toMatchObject({ name: "MissingPeerError", code: "missing_peer", installLine: "npm install jose@6" });
      expect(String((out.error as { message: string }).message)).toContain(
        "jwtVerifier() of arc-agentkit/express needs the optional peer dependency jose",
      );
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe("jwtVerifier: RFC 9068 §4 token type", () => {
  it("refuses a token typed JWT and one with no typ (an ID token's shape); accepts at+jwt and application/at+jwt", async () => {
    await using as = await startAuthServer();
    const verify = jwtVerifier({ issuer: as.issuer, audience: RESOURCE, jwksUri: as.jwksUri });
    const typed = await refusalOf(verify, await as.mint({ audience: RESOURCE, type: "JWT" }));
    expect(typed.reason).toBe("token_type");
    expect(typed.message).toMatch(/typ 'JWT', not 'at\+jwt' \(RFC 9068\)/);
    expect((await refusalOf(verify, await as.mint({ audience: RESOURCE, type: null }))).reason).toBe("token_type");
    await expect(verify(await as.mint({ audience: RESOURCE }))).resolves.toMatchObject({ resource: RESOURCE });
    await expect(verify(await as.mint({ audience: RESOURCE, type: "application/at+jwt" }))).resolves.toMatchObject({ resource: RESOURCE });
  });

  it("requireAtJwtType: false accepts any typ (an authorization server that types access tokens JWT)", async () => {
    await using as = await startAuthServer();
    const verify = jwtVerifier({ issuer: as.issuer, audience: RESOURCE, jwksUri: as.jwksUri, requireAtJwtType: false });
    await expect(verify(await as.mint({ audience: RESOURCE, type: "JWT" }))).resolves.toMatchObject({ resource: RESOURCE });
    await expect(verify(await as.mint({ audience: RESOURCE, type: null }))).resolves.toMatchObject({ resource: RESOURCE });
    expect(() => jwtVerifier({ issuer: as.issuer, audience: RESOURCE, requireAtJwtType: "no" as never })).toThrow(
      /'requireAtJwtType' must be true or false/,
    );
  });
});

describe("jwtVerifier: discovery touches the network only for a token worth it, and remembers a failure", () => {
  afterEach(() => vi.useRealTimers());

  it("a token that does not parse, names another issuer or has the wrong typ is refused before any metadata fetch", async () => {
    await using as = await startAuthServer();
    const verify = jwtVerifier({ issuer: as.issuer, audience: RESOURCE });
    expect((await refusalOf(verify, "a.b.c")).reason).toBe("malformed");
    expect((await refusalOf(verify, "eyJhbGciOiJFUzI1NiJ9.bm90IGpzb24.c2ln")).reason).toBe("malformed");
    expect((await refusalOf(verify, await as.mint({ audience: RESOURCE, issuer: "https://elsewhere.example" }))).reason).toBe("issuer");
    expect((await refusalOf(verify, await as.mint({ audience: RESOURCE, type: "JWT" }))).reason).toBe("token_type");
    expect(as.hits["/.well-known/oauth-authorization-server"]).toBeUndefined();
    expect(as.hits["/jwks"]).toBeUndefined();
  });

  it("a failed discovery is remembered for a short while: 20 tokens, one fetch of each metadata URL; after the pause it is tried again", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    await using as = await startAuthServer();
    const issuer = `${as.issuer}/tenant`; // no metadata there: 404 on both well-known URLs
    const verify = jwtVerifier({ issuer, audience: RESOURCE });
    for (let i = 0; i < 20; i++) {
      const err = await refusalOf(verify, await as.mint({ audience: RESOURCE, issuer }));
      expect(err.reason).toBe("keys_unavailable");
    }
    expect(as.hits["/.well-known/oauth-authorization-server/tenant"]).toBe(1);
    expect(as.hits["/tenant/.well-known/openid-configuration"]).toBe(1);
    vi.setSystemTime(Date.now() + 30_000);
    await refusalOf(verify, await as.mint({ audience: RESOURCE, issuer }));
    expect(as.hits["/.well-known/oauth-authorization-server/tenant"]).toBe(2);
  });

  it("a hanging issuer: concurrent tokens share one bounded wait (5 s on the clock), then the failure answers at once", async () => {
    let seen = 0;
    let arrived!: () => void;
    const first = new Promise<void>((r) => (arrived = r));
    const hanging = createServer(() => {
      seen++;
      arrived();
    });
    await new Promise<void>((r) => hanging.listen(0, "127.0.0.1", r));
    const issuer = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
    try {
      await using as = await startAuthServer();
      vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
      const verify = jwtVerifier({ issuer, audience: RESOURCE });
      const tokens = await Promise.all([1, 2, 3, 4, 5].map(() => as.mint({ audience: RESOURCE, issuer })));
      const refusals = tokens.map((t) =>
        verify(t).then(
          () => undefined,
          (e: unknown) => e as AccessTokenError,
        ),
      );
      await first;
      await vi.advanceTimersByTimeAsync(5_000);
      const errors = await Promise.all(refusals);
      for (const e of errors)
        expect(e).toMatchObject({ reason: "keys_unavailable", message: expect.stringContaining("did not answer within 5000 ms") });
      expect(seen).toBe(1);
      expect((await refusalOf(verify, tokens[0]!)).reason).toBe("keys_unavailable");
      expect(seen).toBe(1);
    } finally {
      vi.useRealTimers();
      hanging.closeAllConnections();
      await new Promise<void>((r) => hanging.close(() => r()));
    }
  });
});

describe("jwtVerifier: a verified token is remembered, by its exact string, never past its exp", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("the same token again is answered without a second signature check; another token (a byte changed) is checked", async () => {
    await using as = await startAuthServer();
    const verify = jwtVerifier({ issuer: as.issuer, audience: RESOURCE, jwksUri: as.jwksUri });
    const token = await as.mint({ audience: RESOURCE, scopes: ["a"] });
    const signatureChecks = vi.spyOn(globalThis.crypto.subtle, "verify");
    const first = await verify(token);
    expect(signatureChecks).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 5; i++) expect(await verify(token)).toEqual(first);
    expect(signatureChecks).toHaveBeenCalledTimes(1);
    // The exact string is the key: the same token with one character of its signature changed is checked, and refused.
    const at = token.length - 10;
    const changed = token.slice(0, at) + (token[at] === "A" ? "B" : "A") + token.slice(at + 1);
    expect((await refusalOf(verify, changed)).reason).toBe("signature");
    expect(signatureChecks).toHaveBeenCalledTimes(2);
  });

  it("an expired token is refused even when it was verified (and remembered) before (fake clock)", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    await using as = await startAuthServer();
    const verify = jwtVerifier({ issuer: as.issuer, audience: RESOURCE, jwksUri: as.jwksUri, clockToleranceSec: 0 });
    const token = await as.mint({ audience: RESOURCE, expiresInSec: 60 });
    const { expiresAt } = await verify(token);
    await verify(token);
    vi.setSystemTime(expiresAt * 1000 - 1);
    await expect(verify(token)).resolves.toMatchObject({ resource: RESOURCE });
    vi.setSystemTime(expiresAt * 1000 + 1000);
    expect((await refusalOf(verify, token)).reason).toBe("expired");
  });

  it("a token remembered by one verifier is refused by a verifier of another audience", async () => {
    await using as = await startAuthServer();
    const here = jwtVerifier({ issuer: as.issuer, audience: RESOURCE, jwksUri: as.jwksUri });
    const elsewhere = jwtVerifier({ issuer: as.issuer, audience: "https://other.example.com/mcp", jwksUri: as.jwksUri });
    const token = await as.mint({ audience: RESOURCE });
    await here(token);
    await here(token);
    expect((await refusalOf(elsewhere, token)).reason).toBe("audience");
    expect((await refusalOf(elsewhere, token)).reason).toBe("audience");
  });
});
