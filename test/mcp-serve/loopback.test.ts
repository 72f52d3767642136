/**
 * @module test/mcp-serve/loopback.test
 * The loopback listener over real sockets: Host/Origin before the token, the
 * token in constant time, body limits, refused upgrades, session routing, the
 * pre-start 503, and a lifecycle that genuinely releases the port.
 */
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { LoopbackMcpTransport } from "../../src/mcp/loopback/loopback-transport.js";
import { OptionsError } from "../../src/index.js";
import { checkBearer, checkHost, checkOrigin, tokenDigest } from "../../src/listener/loopback-checks.js";
import { INITIALIZE, echoServer, holdPort, portIsFree, rawPost, rpcMessages, sdkClientFor } from "./helpers.js";

const open: LoopbackMcpTransport[] = [];
async function bound(options: Partial<Parameters<typeof LoopbackMcpTransport.bind>[0]> = {}): Promise<LoopbackMcpTransport> {
  const t = await LoopbackMcpTransport.bind({ serverFactory: echoServer, ...options });
  open.push(t);
  return t;
}
async function serving(options: Partial<Parameters<typeof LoopbackMcpTransport.bind>[0]> = {}): Promise<LoopbackMcpTransport> {
  const t = await bound(options);
  await t.start();
  return t;
}
afterEach(async () => {
  for (const t of open.splice(0)) await t.stop();
});

/** Send raw bytes, read until the peer closes; returns the status line. */
function rawExchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: "127.0.0.1", port }, () => s.write(text));
    let data = "";
    s.on("data", (d) => (data += d.toString("latin1")));
    s.on("close", () => resolve(data.split("\r\n")[0] ?? ""));
    s.on("error", reject);
    s.setTimeout(5000, () => s.destroy(new Error("raw exchange timed out")));
  });
}

describe("pure checks", () => {
  it("accepts only this listener's loopback Host", () => {
    expect(checkHost("127.0.0.1:4000", 4000)).toEqual({ ok: true });
    expect(checkHost("LOCALHOST:4000", 4000)).toEqual({ ok: true });
    expect(checkHost("[::1]:4000", 4000)).toEqual({ ok: true });
    expect(checkHost("127.0.0.1:4001", 4000)).toMatchObject({ ok: false, code: "host_not_allowed", status: 403 });
    expect(checkHost("127.0.0.1", 4000)).toMatchObject({ ok: false, status: 403 });
    expect(checkHost("evil.example.com:4000", 4000)).toMatchObject({ ok: false, message: "Invalid Host: evil.example.com:4000" });
    expect(checkHost(undefined, 4000)).toMatchObject({ ok: false, code: "host_missing" });
  });

  it("accepts an absent Origin or this listener's own, nothing else", () => {
    expect(checkOrigin(undefined, 4000)).toEqual({ ok: true });
    expect(checkOrigin("http://localhost:4000", 4000)).toEqual({ ok: true });
    expect(checkOrigin("http://127.0.0.1:4000", 4000)).toEqual({ ok: true });
    for (const o of ["http://localhost:3000", "null", "http://evil.example.com:4000", "file:///x", "nonsense"]) {
      expect(checkOrigin(o, 4000)).toMatchObject({ ok: false, code: "origin_not_allowed", status: 403 });
    }
  });

  it("checks the bearer token against a digest", () => {
    const d = tokenDigest("s3cret");
    expect(checkBearer("Bearer s3cret", d)).toEqual({ ok: true });
    expect(checkBearer("bearer s3cret", d)).toEqual({ ok: true });
    expect(checkBearer("Bearer s3cre", d)).toMatchObject({ ok: false, code: "token_invalid", status: 401 });
    expect(checkBearer("Basic s3cret", d)).toMatchObject({ ok: false, code: "token_missing" });
    expect(checkBearer(undefined, d)).toMatchObject({ ok: false, code: "token_missing" });
  });
});

describe("LoopbackMcpTransport", () => {
  it("binds 127.0.0.1 on an ephemeral port with a generated 43-char token", async () => {
    const t = await bound();
    expect(t.host).toBe("127.0.0.1");
    expect(t.port).toBeGreaterThan(0);
    expect(t.url).toBe(`http://127.0.0.1:${t.port}/mcp`);
    expect(t.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(t.authHeaders).toEqual({ Authorization: `Bearer ${t.token}` });
    expect(Object.isFrozen(t.authHeaders)).toBe(true);
    expect(t.serving).toBe(false);
    const other = await bound();
    expect(other.token).not.toBe(t.token);
  });

  it("refuses a non-loopback host and bad options before binding", async () => {
    await expect(LoopbackMcpTransport.bind({ serverFactory: echoServer, host: "0.0.0.0" })).rejects.toThrow(OptionsError);
    await expect(LoopbackMcpTransport.bind({ serverFactory: echoServer, host: "0.0.0.0" })).rejects.toThrow(/refusing to bind '0.0.0.0'/);
    await expect(LoopbackMcpTransport.bind({ serverFactory: echoServer, port: 70000 })).rejects.toThrow(/port must be an integer/);
    await expect(LoopbackMcpTransport.bind({ serverFactory: echoServer, auth: "bogus" as never })).rejects.toThrow(/auth must be/);
    await expect(LoopbackMcpTransport.bind({} as never)).rejects.toThrow(/serverFactory must be a function/);
    await expect(LoopbackMcpTransport.bind({ serverFactory: echoServer, token: "constant" } as never)).rejects.toThrow(
      /generated by the listener and never supplied/,
    );
  });

  it("a busy fixed port rejects in the caller's await with the real EADDRINUSE, endpoint appended", async () => {
    const held = await holdPort();
    try {
      const err = await LoopbackMcpTransport.bind({ serverFactory: echoServer, port: held.port }).catch((e: NodeJS.ErrnoException) => e);
      expect(err).toBeInstanceOf(Error);
      expect((err as NodeJS.ErrnoException).code).toBe("EADDRINUSE");
      expect((err as Error).message).toContain(`127.0.0.1:${held.port}`);
      expect((err as Error).message).toContain(`http://127.0.0.1:${held.port}/mcp`);
    } finally {
      await held.close();
    }
  });

  it("answers 503 before start(), after the security checks", async () => {
    const t = await bound();
    const noToken = await rawPost(t.url, INITIALIZE);
    expect(noToken.status).toBe(401);
    const res = await rawPost(t.url, INITIALIZE, t.authHeaders);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(await res.text()).toContain("start()");
  });

  it("refuses a foreign Host or Origin with 403 before the token check", async () => {
    const t = await serving();
    const evilHost = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: "127.0.0.1",
          port: t.port,
          path: "/mcp",
          method: "POST",
          headers: { Host: "evil.example.com", "Content-Type": "application/json" },
        },
        (res) => {
          let body = "";
          res.on("data", (d) => (body += d));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify(INITIALIZE));
    });
    expect(evilHost.status).toBe(403);
    expect(JSON.parse(evilHost.body)).toEqual({
      jsonrpc: "2.0",
      error: { code: -32000, message: "Invalid Host: evil.example.com" },
      id: null,
    });
    const evilOrigin = await rawPost(t.url, INITIALIZE, { Origin: "http://evil.example.com" });
    expect(evilOrigin.status).toBe(403);
    expect(evilOrigin.headers.get("www-authenticate")).toBeNull();
    const otherLocalPort = await rawPost(t.url, INITIALIZE, { ...t.authHeaders, Origin: `http://127.0.0.1:${t.port + 1}` });
    expect(otherLocalPort.status).toBe(403);
    const ownOrigin = await rawPost(t.url, INITIALIZE, { ...t.authHeaders, Origin: `http://localhost:${t.port}` });
    expect(ownOrigin.status).toBe(200);
  });

  it("401s a missing or wrong token with WWW-Authenticate: Bearer; serves the right one", async () => {
    const t = await serving();
    const missing = await rawPost(t.url, INITIALIZE);
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
    const wrong = await rawPost(t.url, INITIALIZE, { Authorization: `Bearer ${"x".repeat(43)}` });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toMatch(/^Bearer\b.*invalid_token/);
    expect(await wrong.text()).not.toContain(t.token!);
    const ok = await rawPost(t.url, INITIALIZE, t.authHeaders);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toContain("text/event-stream");
    expect(ok.headers.get("mcp-session-id")).toBeTruthy();
  });

  it("limits the body size with 413, declared or streamed", async () => {
    const t = await serving({ maxBodyBytes: 1024 });
    const big = JSON.stringify({ ...INITIALIZE, pad: "x".repeat(4096) });
    const res = await rawPost(t.url, big, t.authHeaders);
    expect(res.status).toBe(413);
    expect(await res.text()).toContain("limited to 1024 bytes");
    // Chunked (no Content-Length): counted while streaming.
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: "127.0.0.1",
          port: t.port,
          path: "/mcp",
          method: "POST",
          headers: { ...t.authHeaders, "Content-Type": "application/json", "Transfer-Encoding": "chunked" },
        },
        (r) => {
          r.resume();
          resolve(r.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.write(big.slice(0, 800));
      req.end(big.slice(800));
    });
    expect(chunked).toBe(413);
  });

  it("refuses WebSocket upgrades and CONNECT", async () => {
    const t = await serving();
    const ws = await rawExchange(
      t.port,
      `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${t.port}\r\nAuthorization: Bearer ${t.token}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
    );
    expect(ws).toBe("HTTP/1.1 403 Forbidden");
    const conn = await rawExchange(t.port, `CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n`);
    expect(conn).toBe("HTTP/1.1 403 Forbidden");
  });

  it("serves an SDK client end to end; unknown sessions 404; other paths 404; PUT 405", async () => {
    const t = await serving();
    await using client = await sdkClientFor(t.url, t.authHeaders);
    const tools = await client.listTools();
    expect(tools.tools.map((x) => x.name)).toEqual(["echo"]);
    const r = await client.callTool({ name: "echo", arguments: { text: "hi" } });
    expect(r.content).toEqual([{ type: "text", text: "hi" }]);
    expect(t.sessionCount).toBe(1);
    const unknown = await rawPost(
      t.url,
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { ...t.authHeaders, "Mcp-Session-Id": "no-such-session" },
    );
    expect(unknown.status).toBe(404);
    const get = await fetch(t.url, { headers: { ...t.authHeaders, "Mcp-Session-Id": "no-such-session", Accept: "text/event-stream" } });
    expect(get.status).toBe(404);
    await get.text();
    const other = await rawPost(t.url.replace("/mcp", "/other"), INITIALIZE, t.authHeaders);
    expect(other.status).toBe(404);
    const put = await fetch(t.url, { method: "PUT", headers: t.authHeaders });
    expect(put.status).toBe(405);
    await put.text();
  });

  it("answers an unknown method sent before initialize (server/discover, no 2026 claim) with a JSON-RPC error, as the SDK does; a 2026 header without the envelope is refused by the modern path", async () => {
    const t = await serving();
    const res = await rawPost(t.url, { jsonrpc: "2.0", id: 1, method: "server/discover", params: {} }, t.authHeaders);
    expect(res.status).toBe(200);
    const [msg] = await rpcMessages(res);
    expect(msg).toMatchObject({ jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } });
    // The 2026-07-28 version header without the era's _meta envelope: the SDK v2's modern path refuses it (-32602), no session opens
    // (a real 2026 client sends the envelope: see both-eras.test).
    const versioned = await rawPost(
      t.url,
      { jsonrpc: "2.0", id: 1, method: "server/discover", params: {} },
      { ...t.authHeaders, "Mcp-Protocol-Version": "2026-07-28" },
    );
    expect(versioned.status).toBe(400);
    expect(versioned.headers.get("mcp-session-id")).toBeNull();
    expect(await versioned.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32602 } });
    // ... and a 2025-era initialize on the same URL works.
    const init = await rawPost(t.url, INITIALIZE, t.authHeaders);
    expect(init.status).toBe(200);
    const [initMsg] = await rpcMessages(init);
    expect(initMsg).toMatchObject({ id: 1, result: { serverInfo: { name: "echo" } } });
  });

  it("auth 'none' serves without a token and says so", async () => {
    const t = await serving({ auth: "none" });
    expect(t.token).toBeNull();
    expect(t.authHeaders).toEqual({});
    const res = await rawPost(t.url, INITIALIZE);
    expect(res.status).toBe(200);
    await res.text();
  });

  it("stop() releases the port even with an open SSE stream and keep-alive connection; start() re-binds the same port and token", async () => {
    const t = await serving();
    const { port, token } = t;
    const client = await sdkClientFor(t.url, t.authHeaders);
    await client.listTools();
    // The SDK client holds the standalone GET SSE stream open now.
    await t.stop();
    expect(t.serving).toBe(false);
    expect(await portIsFree(port)).toBe(true);
    await client.close();
    await t.stop(); // idempotent
    await t.start();
    expect(t.port).toBe(port);
    expect(t.token).toBe(token);
    await using again = await sdkClientFor(t.url, t.authHeaders);
    expect((await again.listTools()).tools).toHaveLength(1);
    await t.start(); // idempotent
    expect(t.serving).toBe(true);
  });

  it("start() after stop() rejects with EADDRINUSE when the port was taken meanwhile, and can retry", async () => {
    const t = await serving();
    await t.stop();
    const thief = await holdPort(t.port);
    try {
      await expect(t.start()).rejects.toMatchObject({ code: "EADDRINUSE" });
      expect(t.serving).toBe(false);
    } finally {
      await thief.close();
    }
    await t.start();
    expect(t.serving).toBe(true);
  });

  it("stateless mode serves each POST with a fresh server and no session", async () => {
    const t = await serving({ stateless: true });
    const res = await rawPost(t.url, INITIALIZE, t.authHeaders);
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    await res.text();
    const list = await rawPost(t.url, { jsonrpc: "2.0", id: 2, method: "tools/list" }, t.authHeaders);
    const [msg] = await rpcMessages(list);
    expect(msg).toMatchObject({ id: 2, result: { tools: [{ name: "echo" }] } });
    expect(t.sessionCount).toBe(0);
  });
});
