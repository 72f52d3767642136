/**
 * @module test/listener/read-body.test
 * The one body reader every route uses, on a real node:http server on
 * 127.0.0.1: text within the limit; a body too large, declared or streamed,
 * refused with the connection closed after the answer; a client gone
 * mid-body reported, never thrown; JSON parsed or its error named.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { readBody, readJsonBody, type BodyText, type JsonBody } from "../../src/listener/read-body.js";
import { until } from "../helpers/wait.js";

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A server whose every request is read with `read`; each result is recorded and answered as JSON. */
async function serving<T extends BodyText | JsonBody>(
  read: (req: IncomingMessage, res: ServerResponse) => Promise<T>,
): Promise<{ port: number; seen: T[]; readonly requests: number }> {
  const seen: T[] = [];
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    void read(req, res).then((r) => {
      seen.push(r);
      if (r.ok || r.reason !== "aborted")
        res.writeHead(r.ok ? 200 : r.reason === "too_large" ? 413 : 400, { "content-type": "application/json" }).end(JSON.stringify(r));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  close = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    get requests() {
      return requests;
    },
  };
}

/** POST `parts` (chunked unless `length` is given); the status, the body and whether the server closed the connection. */
function post(port: number, parts: string[], length?: number): Promise<{ status: number; body: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/",
        headers: length === undefined ? { "transfer-encoding": "chunked" } : { "content-length": String(length) },
      },
      (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body, closed: res.headers.connection === "close" }));
      },
    );
    req.on("error", reject);
    for (const p of parts) req.write(p);
    req.end();
  });
}

describe("readBody", () => {
  it("the text of a body within the limit, in pieces or whole", async () => {
    const s = await serving((req, res) => readBody(req, res, 16));
    expect(await post(s.port, ["hello ", "world"])).toMatchObject({ status: 200, closed: false });
    expect(await post(s.port, ["exactly 16 bytes"], 16)).toMatchObject({ status: 200 });
    expect(s.seen).toEqual([
      { ok: true, text: "hello world" },
      { ok: true, text: "exactly 16 bytes" },
    ]);
  });

  it("too large, declared or only found while streaming: refused, and the connection closes after the answer", async () => {
    const s = await serving((req, res) => readBody(req, res, 16));
    expect(await post(s.port, ["x".repeat(17)], 17)).toMatchObject({ status: 413, closed: true });
    expect(await post(s.port, ["x".repeat(10), "x".repeat(10)])).toMatchObject({ status: 413, closed: true });
    expect(s.seen).toEqual([
      { ok: false, reason: "too_large" },
      { ok: false, reason: "too_large" },
    ]);
  });

  it("a client that resets mid-body is reported as aborted, and the server goes on serving", async () => {
    const s = await serving((req, res) => readBody(req, res, 1024));
    const req = request({ host: "127.0.0.1", port: s.port, method: "POST", path: "/", headers: { "content-length": "100" } });
    const gone = new Promise<void>((resolve) => req.on("error", () => resolve()));
    req.write("only part of it");
    await until(() => s.requests === 1, "the server to be reading the request's body");
    req.destroy();
    await gone;
    await expect.poll(() => s.seen).toEqual([{ ok: false, reason: "aborted" }]);
    expect(await post(s.port, ["after"])).toMatchObject({ status: 200 });
  });
});

describe("readJsonBody", () => {
  it("parses JSON; anything else is not_json with the parser's message", async () => {
    const s = await serving((req, res) => readJsonBody(req, res, 64));
    await post(s.port, ['{"a":[1,2]}']);
    await post(s.port, ["{nope"]);
    expect(s.seen[0]).toEqual({ ok: true, value: { a: [1, 2] } });
    expect(s.seen[1]).toMatchObject({ ok: false, reason: "not_json", error: expect.stringMatching(/JSON/) });
  });
});
