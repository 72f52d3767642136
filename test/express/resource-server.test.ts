/**
 * @module test/express/resource-server.test
 * The OAuth resource-server and off-loopback rules of `mcpRouter`, over a
 * real express app on 127.0.0.1: the 401 shapes (no token, unknown, expired,
 * wrong audience, a verifier that throws — never a 500), the Host and Origin
 * checks, the body limit, the per-principal rate limit, and options refused when
 * the router is made.
 */
import { request as httpRequest } from "node:http";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { tool } from "../../src/index.js";
import { mcpRouter } from "../../src/express/index.js";
import { closeAll, grant, hosted, modernCall, post, postWithHost } from "./kit.js";

afterEach(closeAll);

const echo = tool(
  { name: "echo", description: "Echo a text.", sideEffecting: false, input: { type: "object", properties: { text: { type: "string" } } } },
  ({ text }: { text?: string }) => text ?? "",
);
const LIST = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };

function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}`, "mcp-protocol-version": "2025-11-25" };
}

describe("mcpRouter: 401 with WWW-Authenticate naming the metadata", () => {
  it("no token: 401, a Bearer challenge with resource_metadata, and the document it names is served", async () => {
    const h = await hosted([echo]);
    const res = await post(h.url, LIST);
    expect(res.status).toBe(401);
    const challenge = res.headers.get("www-authenticate") ?? "";
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${h.url}/.well-known/oauth-protected-resource"`);
    expect(h.router.resourceMetadataUrl).toBe(`${h.url}/.well-known/oauth-protected-resource`);
    expect(((await (await fetch(h.router.resourceMetadataUrl)).json()) as { resource: string }).resource).toBe(h.url);
  });

  it.each([
    ["an unknown token", (_h: Awaited<ReturnType<typeof hosted>>) => "nobody-issued-this"],
    [
      "an expired token",
      (h: Awaited<ReturnType<typeof hosted>>) => grant(h, "t-old", [], { expiresAt: Math.floor(Date.now() / 1000) - 10 }),
    ],
    [
      "a token for another resource (audience)",
      (h: Awaited<ReturnType<typeof hosted>>) => grant(h, "t-aud", [], { resource: "https://other.example.com/mcp" }),
    ],
    [
      "a token whose verifier throws a TypeError",
      (h: Awaited<ReturnType<typeof hosted>>) => (h.tokens.set("t-boom", new TypeError("jwks fetch failed")), "t-boom"),
    ],
  ])("%s: 401 invalid_token with the challenge, never a 500", async (_what, tokenFor) => {
    const h = await hosted([echo]);
    const res = await post(h.url, LIST, bearer(tokenFor(h)));
    expect(res.status).toBe(401);
    const challenge = res.headers.get("www-authenticate") ?? "";
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain(`resource_metadata="${h.url}/.well-known/oauth-protected-resource"`);
    expect(((await res.json()) as { error: string }).error).toBe("invalid_token");
  });

  it("a verifier answering the wrong shape refuses the token (401), it does not crash the app", async () => {
    const h = await hosted([echo], { verifyAccessToken: () => ({ clientId: "", scopes: "x" }) as never });
    const res = await post(h.url, LIST, bearer("anything"));
    expect(res.status).toBe(401);
    const ok = await fetch(`${h.url}/.well-known/oauth-protected-resource`);
    expect(ok.status).toBe(200);
  });
});

describe("mcpRouter: off-loopback rules", () => {
  it("a Host not in allowedHosts (default: the resource's hostname) is refused 403 before the token is read", async () => {
    const h = await hosted([echo]);
    const token = grant(h, "t-host", []);
    const res = await postWithHost(h.url, "evil.example.com", LIST, bearer(token));
    expect(res.status).toBe(403);
    expect(res.text).toContain("evil.example.com");
    expect((await post(h.url, LIST, bearer(token))).status).toBe(200);
  });

  it("CORS is off unless configured: a browser Origin from elsewhere is refused 403, and no Access-Control header is sent", async () => {
    const h = await hosted([echo]);
    const token = grant(h, "t-origin", []);
    const res = await post(h.url, LIST, { ...bearer(token), origin: "https://attacker.example" });
    expect(res.status).toBe(403);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("with cors.origins, that origin gets the CORS headers and its preflight is answered", async () => {
    const h = await hosted([echo], { cors: { origins: ["https://app.example.com"] } });
    const pre = await fetch(h.url, {
      method: "OPTIONS",
      headers: { origin: "https://app.example.com", "access-control-request-method": "POST" },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect(pre.headers.get("access-control-allow-headers")).toContain("Authorization");
    const res = await post(h.url, LIST, { ...bearer(grant(h, "t-cors", [])), origin: "https://app.example.com" });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-expose-headers")).toContain("WWW-Authenticate");
  });

  it("a body over maxBodyBytes is 413 with a JSON-RPC error naming the limit", async () => {
    const h = await hosted([echo], { maxBodyBytes: 2048 });
    const { body, headers } = modernCall("echo", { text: "x".repeat(5000) });
    const res = await post(h.url, body, { ...headers, authorization: `Bearer ${grant(h, "t-big", [])}` });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: { message: expect.stringContaining("larger than 2048 bytes (maxBodyBytes)") } });
  });

  it("a body that is not JSON is 400 parse error, not a 500", async () => {
    const h = await hosted([echo]);
    const res = await post(h.url, "{not json", bearer(grant(h, "t-parse", [])));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: -32700 } });
  });

  it("every body shape keeps the rules: compressed and chunked bodies are parsed, a BOM is skipped, a bare JSON string is 400, a chunked body past the limit is 413", async () => {
    const h = await hosted([echo], { maxBodyBytes: 2048 });
    const auth = { ...bearer(grant(h, "t-shapes", [])), "content-type": "application/json", accept: "application/json, text/event-stream" };
    const list = JSON.stringify(LIST);
    const gzip = await rawPost(h.url, { ...auth, "content-encoding": "gzip" }, [gzipSync(list)]);
    expect(gzip.status).toBe(200);
    expect(gzip.text).toContain('"tools"');
    const chunked = await rawPost(h.url, auth, [list.slice(0, 10), list.slice(10)]);
    expect(chunked.status).toBe(200);
    expect(chunked.text).toContain('"tools"');
    const bom = await rawPost(h.url, { ...auth, "content-type": "application/json; charset=utf-8" }, [`\ufeff${list}`], true);
    expect(bom.status).toBe(200);
    expect(bom.text).toContain('"tools"');
    const bare = await rawPost(h.url, auth, ['"tools/list"'], true);
    expect(bare.status).toBe(400);
    expect(JSON.parse(bare.text)).toMatchObject({ error: { code: -32700 } });
    const big = await rawPost(h.url, auth, ["[", " ".repeat(1500), " ".repeat(1500), "]"]);
    expect(big.status).toBe(413);
    expect(big.text).toContain("larger than 2048 bytes (maxBodyBytes)");
  });

  it("a 2025-era POST is refused as the SDK's transport refuses it: no text/event-stream in Accept is 406, an unknown MCP-Protocol-Version 400", async () => {
    const h = await hosted([echo]);
    const token = grant(h, "t-legacy", []);
    const accept = await post(h.url, LIST, { ...bearer(token), accept: "application/json" });
    expect(accept.status).toBe(406);
    expect(await accept.json()).toMatchObject({ error: { message: expect.stringContaining("Not Acceptable") } });
    const version = await post(h.url, LIST, { authorization: `Bearer ${token}`, "mcp-protocol-version": "1999-01-01" });
    expect(version.status).toBe(400);
    expect(await version.json()).toMatchObject({ error: { message: expect.stringContaining("Unsupported protocol version: 1999-01-01") } });
  });

  it("past the per-principal rate limit: 429 with Retry-After; another principal is not held back", async () => {
    const h = await hosted([echo], { rateLimit: { requests: 3, windowMs: 60_000 } });
    const busy = grant(h, "t-busy", []);
    for (let i = 0; i < 3; i++) expect((await post(h.url, LIST, bearer(busy))).status).toBe(200);
    const refused = await post(h.url, LIST, bearer(busy));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({
      error: { message: expect.stringContaining("at most 3 requests per 60000 ms for one principal") },
    });
    expect((await post(h.url, LIST, bearer(grant(h, "t-calm", [], { clientId: "client-b" })))).status).toBe(200);
  });
});

describe("mcpRouter: options checked when the router is made", () => {
  const base = {
    resource: "https://tools.example.com/mcp",
    authorizationServers: ["https://auth.example.com"],
    verifyAccessToken: () => ({ clientId: "c", scopes: [], expiresAt: 1, resource: "https://tools.example.com/mcp" }),
  };
  it.each([
    [{ ...base, resource: "tools.example.com/mcp" }, "resource", "'resource' must be an absolute http(s) URL"],
    [{ ...base, authorizationServers: [] }, "authorizationServers", "must name at least one issuer URL"],
    [{ ...base, verifyAccessToken: undefined }, "verifyAccessToken", "'verifyAccessToken' is required"],
    [{ ...base, fleetKey: "short" }, "fleetKey", "at least 32 bytes"],
    [{ ...base, rateLimit: { requests: 0, windowMs: 1000 } }, "rateLimit.requests", "rateLimit.requests must be a positive integer"],
    [{ ...base, maxBodyBytes: -1 }, "maxBodyBytes", "maxBodyBytes must be a positive integer"],
    [{ ...base, sessions: true }, "sessions", "unknown option 'sessions'"],
    [
      { ...base, rateLimit: { requests: 5, windowMs: 1000, burst: 2 } },
      "rateLimit",
      "mcpRouter: 'rateLimit': unknown option 'burst'. Accepted options: requests, windowMs",
    ],
    [
      { ...base, cors: { origins: ["https://app.example.com"], credentials: true } },
      "cors",
      "mcpRouter: 'cors': unknown option 'credentials'. Accepted options: origins",
    ],
    [{ ...base, cors: {} }, "cors", "'cors' must be an array of origins like https://app.example.com"],
    [{ ...base, ctx: {} }, "ctx", "'ctx' must be a RunContext"],
  ])("%#: refuses %s naming it", (options, option, text) => {
    let thrown: unknown;
    try {
      mcpRouter([echo], options as never);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toMatchObject({
      name: "OptionsError",
      code: "invalid_option",
      where: "mcpRouter",
      option,
      message: expect.stringContaining(text),
    });
  });
});

/** A POST through node:http with the body in `chunks`: with a Content-Length when `sized`, else chunked. Status and body text. */
function rawPost(
  url: string,
  headers: Record<string, string>,
  chunks: ReadonlyArray<string | Buffer>,
  sized = false,
): Promise<{ status: number; text: string }> {
  const length = chunks.reduce((n, c) => n + Buffer.byteLength(c), 0);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: "POST", headers: sized ? { ...headers, "content-length": String(length) } : headers }, (res) => {
      let text = "";
      res
        .setEncoding("utf8")
        .on("data", (d: string) => (text += d))
        .on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    for (const c of chunks) req.write(c);
    req.end();
  });
}
