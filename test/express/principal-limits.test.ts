/**
 * @module test/express/principal-limits.test
 * The limits of a hosted router count what a principal does, however its
 * token is spelled or its requests are packed: real jose tokens from the
 * local authorization server, respelled (a JWS signature has spare bits its
 * base64url decoder ignores); a 2025-era JSON-RPC batch; a stream of junk
 * tokens from one peer refused 429 before any token work. Rate windows run
 * on vitest's fake clock (Date only: the sockets are real).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { tool } from "../../src/index.js";
import { jwtVerifier } from "../../src/express/index.js";
import { startAuthServer, type TestAuthServer } from "../helpers/oauth-server.js";
import { closeAll, hosted, post } from "./kit.js";

const RESOURCE = "http://127.0.0.1/mcp";
const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

let as: TestAuthServer;
beforeAll(async () => {
  as = await startAuthServer({ defaultAudience: RESOURCE });
});
afterAll(() => as?.close());
afterEach(async () => {
  vi.useRealTimers();
  await closeAll();
});

/** The `n`-th of 16 spellings of `jwt` that verify alike: the signature's last character differs only in bits the decoder drops. */
function respelled(jwt: string, n: number): string {
  const last = B64URL.indexOf(jwt.at(-1)!);
  return jwt.slice(0, -1) + B64URL[(last & ~15) + (n % 16)]!;
}

/** A legacy (2025-11-25) POST with `token`. */
function legacy(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}`, "mcp-protocol-version": "2025-11-25" };
}

const LIST = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };

describe("mcpRouter: the rate limit counts the verified principal", () => {
  it("respelled tokens of one principal share one window: the fourth spelling is 429 at a limit of 3", async () => {
    const h = await hosted([tool({ name: "echo", description: "Echo." }, () => "ok")], {
      resource: RESOURCE,
      verifyAccessToken: jwtVerifier({ issuer: as.issuer, audience: RESOURCE, jwksUri: as.jwksUri }),
      rateLimit: { requests: 3, windowMs: 60_000 },
    });
    const token = await as.mint({ audience: RESOURCE, clientId: "ci-bot" });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await post(h.url, LIST, legacy(respelled(token, i)))).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    // Another principal (another subject of the same client) has its own window.
    const other = await as.mint({ audience: RESOURCE, clientId: "ci-bot", subject: "someone-else" });
    expect((await post(h.url, LIST, legacy(other))).status).toBe(200);
  });

  it("every message of a 2025-era batch is counted: a batch of 5 calls at a limit of 3 is 429 and the tool never runs", async () => {
    const ran: number[] = [];
    const h = await hosted([tool({ name: "count", description: "Count." }, () => String(ran.push(1)))], {
      resource: RESOURCE,
      verifyAccessToken: jwtVerifier({ issuer: as.issuer, audience: RESOURCE, jwksUri: as.jwksUri }),
      rateLimit: { requests: 3, windowMs: 60_000 },
    });
    const token = await as.mint({ audience: RESOURCE });
    const batch = [1, 2, 3, 4, 5].map((id) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "count", arguments: {} } }));
    const res = await post(h.url, batch, { authorization: `Bearer ${token}`, "mcp-protocol-version": "2025-03-26" });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await res.json()).toMatchObject({ error: { message: expect.stringContaining("a batch of 5 message(s)") } });
    expect(ran).toEqual([]);
    // A batch that fits is served and counted whole: 2 of 3, then one more single request, then 429.
    const two = await post(h.url, batch.slice(0, 2), { authorization: `Bearer ${token}`, "mcp-protocol-version": "2025-03-26" });
    expect(two.status).toBe(200);
    expect(ran).toHaveLength(2);
    expect((await post(h.url, LIST, legacy(token))).status).toBe(200);
    expect((await post(h.url, LIST, legacy(token))).status).toBe(429);
  });
});

describe("mcpRouter: the pre-authentication limit per peer address", () => {
  it("past preAuthLimit refused tokens from one address, the next request is 429 with Retry-After before its token is read; the window reopens", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    let verified = 0;
    const h = await hosted([tool({ name: "echo", description: "Echo." }, () => "ok")], {
      verifyAccessToken: () => {
        verified++;
        throw new Error("unknown token");
      },
      preAuthLimit: { requests: 5, windowMs: 60_000 },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await post(h.url, LIST, legacy(`junk-${i}`))).status);
    statuses.push((await post(h.url, LIST)).status); // no token at all: refused before any verifier, counted too
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    expect(verified).toBe(5);
    const refused = await post(h.url, LIST, legacy("junk-late"));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ error: { message: expect.stringContaining("refused requests from this address") } });
    expect(verified).toBe(5);
    vi.setSystemTime(Date.now() + 60_000);
    expect((await post(h.url, LIST, legacy("junk-after"))).status).toBe(401);
    expect(verified).toBe(6);
  });

  it("a good token is not counted against its address", async () => {
    const h = await hosted([tool({ name: "echo", description: "Echo." }, () => "ok")], {
      preAuthLimit: { requests: 2, windowMs: 60_000 },
      rateLimit: false,
    });
    h.tokens.set("good", { clientId: "c", scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 3600, resource: h.url });
    for (let i = 0; i < 5; i++) expect((await post(h.url, LIST, legacy("good"))).status).toBe(200);
  });
});
