/**
 * @module test/express/hosted-listen.test
 * The `subscriptions/listen` streams of a hosted router (MCP 2026-07-28) are
 * counted per principal (the token's client and end user, however many
 * tokens it holds) and router-wide, each under its own option, and live at
 * most `listen.maxLifetimeMs` — never past the token's expiry — ending with
 * the protocol's graceful close. Real JWTs from a local authorization server
 * on 127.0.0.1; the SDK v2 client and raw HTTP.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Client } from "@modelcontextprotocol/client";
import { tool } from "../../src/index.js";
import { jwtVerifier, mcpRouter, type McpRouterOptions } from "../../src/express/index.js";
import { startAuthServer, type TestAuthServer } from "../helpers/oauth-server.js";
import { closeAll, hosted, post, sayYes, type Hosted } from "./kit.js";
import { v2Client } from "../helpers/v2-client.js";

const servers: TestAuthServer[] = [];
const clients: Array<AsyncDisposable> = [];
afterEach(async () => {
  for (const c of clients.splice(0).reverse()) await c[Symbol.asyncDispose]();
  await closeAll();
  for (const s of servers.splice(0)) await s.close();
});

const echo = tool({ name: "echo", description: "Echo.", sideEffecting: false }, () => "echo");

/** A hosted app checking real JWTs; `client(clientId, subject)` opens an SDK v2 client pinned to 2026-07-28 with a fresh token for them. */
async function listening(options: Pick<McpRouterOptions, "listen"> = {}): Promise<{
  h: Hosted;
  token: (clientId: string, subject: string, expiresInSec?: number) => Promise<string>;
  client: (clientId: string, subject: string) => Promise<Client>;
}> {
  const as = await startAuthServer();
  servers.push(as);
  // The audience is the app's own URL, known once it listens: the verifier is made then.
  const verifier: { verify?: ReturnType<typeof jwtVerifier> } = {};
  const h = await hosted([echo], { verifyAccessToken: (t) => verifier.verify!(t), ...options });
  verifier.verify = jwtVerifier({ issuer: as.issuer, audience: h.url });
  const token = (clientId: string, subject: string, expiresInSec = 300): Promise<string> =>
    as.mint({ audience: h.url, clientId, subject, expiresInSec });
  const client = async (clientId: string, subject: string): Promise<Client> => {
    const c = await v2Client(h.url, { token: await token(clientId, subject), version: "2026-07-28", elicit: sayYes });
    clients.push(c);
    return c;
  };
  return { h, token, client };
}

const FILTER = { toolsListChanged: true } as const;

/** A raw 2026-07-28 `subscriptions/listen` POST. */
function rawListen(url: string, token: string, id: string, signal?: AbortSignal): Promise<Response> {
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  return post(
    url,
    { jsonrpc: "2.0", id, method: "subscriptions/listen", params: { notifications: FILTER, _meta } },
    { authorization: `Bearer ${token}`, "mcp-protocol-version": "2026-07-28", "mcp-method": "subscriptions/listen" },
    signal,
  );
}

describe("subscriptions/listen: per caller and router-wide caps", () => {
  it("with the defaults one caller holds at most 16 streams, however many tokens it spells them with; another caller still listens", async () => {
    const { h, token, client } = await listening();
    const alice = await client("client-a", "alice");
    for (let i = 0; i < 8; i++) await alice.listen(FILTER);
    const aliceAgain = await client("client-a", "alice"); // another token, the same principal
    for (let i = 0; i < 8; i++) await aliceAgain.listen(FILTER);
    await expect(aliceAgain.listen(FILTER)).rejects.toThrow(
      /at most 16 open subscriptions\/listen streams for one caller \(listen\.maxStreamsPerCaller\)/,
    );
    const refused = await rawListen(h.url, await token("client-a", "alice"), "raw-1");
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { code: -32000, message: expect.stringContaining("listen.maxStreamsPerCaller") } });
    const bob = await client("client-a", "bob");
    expect(await bob.listen(FILTER)).toMatchObject({ honoredFilter: FILTER });
  });

  it("a stream that ends gives its slot back", async () => {
    const { client } = await listening({ listen: { maxStreamsPerCaller: 1 } });
    const alice = await client("client-a", "alice");
    const first = await alice.listen(FILTER);
    await expect(alice.listen(FILTER)).rejects.toThrow(/listen\.maxStreamsPerCaller/);
    await first.close();
    await vi.waitFor(async () => expect(await alice.listen(FILTER)).toMatchObject({ honoredFilter: FILTER }), {
      timeout: 5000,
      interval: 50,
    });
  });

  it("the router-wide cap refuses a new stream of any caller, naming listen.maxStreams", async () => {
    const { client } = await listening({ listen: { maxStreams: 2 } });
    await (await client("client-a", "alice")).listen(FILTER);
    await (await client("client-b", "bob")).listen(FILTER);
    await expect((await client("client-c", "carol")).listen(FILTER)).rejects.toThrow(
      /at most 2 open subscriptions\/listen streams \(listen\.maxStreams\)/,
    );
  });
});

describe("subscriptions/listen: lifetime", () => {
  it("a stream ends gracefully once listen.maxLifetimeMs has passed: the SDK client hears the server close it", async () => {
    const { client } = await listening({ listen: { maxLifetimeMs: 400 } });
    const started = Date.now();
    const sub = await (await client("client-a", "alice")).listen(FILTER);
    expect(await sub.closed).toBe("graceful");
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
  });

  it("raw: the stream is the ack, then the empty listen result naming the subscription, then its end", async () => {
    const { h, token } = await listening({ listen: { maxLifetimeMs: 300 } });
    const res = await rawListen(h.url, await token("client-a", "alice"), "sub-1");
    expect(res.status).toBe(200);
    const frames = (await res.text())
      .split("\n")
      .filter((l) => l.startsWith("data: "))
      .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
    expect(frames[0]).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
    expect(frames.at(-1)).toMatchObject({
      jsonrpc: "2.0",
      id: "sub-1",
      result: { resultType: "complete", _meta: { "io.modelcontextprotocol/subscriptionId": "sub-1" } },
    });
  });

  it("a stream never outlives its token: it ends when the token expires, before listen.maxLifetimeMs", async () => {
    const { h, token } = await listening();
    const res = await rawListen(h.url, await token("client-a", "alice", 2), "sub-exp");
    const started = Date.now();
    const text = await res.text();
    expect(text).toContain('"resultType":"complete"');
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe("subscriptions/listen: options", () => {
  it.each([
    [{ maxStreams: 0 }, "mcpRouter: listen.maxStreams must be a positive integer, got number 0"],
    [{ maxStreamsPerCaller: 1.5 }, "mcpRouter: listen.maxStreamsPerCaller must be a positive integer, got number 1.5"],
    [{ maxLifetimeMs: -1 }, /^mcpRouter: .*listen\.maxLifetimeMs/],
    [
      { maxStreams: 4, maxStreamsPerCaller: 8 },
      "mcpRouter: listen.maxStreamsPerCaller (8) is more than listen.maxStreams (4): one caller could never hold that many",
    ],
    [{ maxStream: 4 }, /unknown option 'maxStream'.*maxStreams, maxStreamsPerCaller, maxLifetimeMs/],
  ] as const)("listen: %j is refused when the router is made, as an OptionsError naming the option", (listen, message) => {
    const make = (): unknown =>
      mcpRouter([echo], {
        resource: "https://tools.example.com/mcp",
        authorizationServers: ["https://auth.example.com"],
        verifyAccessToken: () => Promise.reject(new Error("no")),
        listen: listen as never,
      });
    expect(make).toThrow(
      expect.objectContaining({
        code: "invalid_option",
        where: "mcpRouter",
        option: "listen",
        message: typeof message === "string" ? message : expect.stringMatching(message),
      }),
    );
  });
});
