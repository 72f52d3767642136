/**
 * @module test/mcp-serve/one-listener.test
 * One process, one listener: the registry, the approval server and the
 * Claude hook endpoint answer on the same port, each at its own path with
 * its own token; each refuses a foreign Host or Origin (403) and a missing
 * or foreign token (401); the port is released when the last one stops.
 */
import { request as httpRequest } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { tool } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { serveRegistry } from "../../src/mcp/serve/index.js";
import { ApprovalServer } from "../../src/mcp/approvals/index.js";
import { HookServer } from "../../src/cli/index.js";
import { leaseListener } from "../../src/listener/shared-listeners.js";
import { INITIALIZE, portIsFree, sdkClientFor } from "./helpers.js";

const echo = tool(
  {
    name: "echo",
    description: "Echo.",
    sideEffecting: false,
    input: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
  },
  ({ text }: { text: string }) => text,
);

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
});

/** A raw POST with exactly these headers (Host included), so a foreign Host can be sent. */
function post(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: Number(u.port),
        path: u.pathname,
        method: "POST",
        headers: { Host: u.host, "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
      },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("the one listener", () => {
  it("registry, approval server and hook endpoint share one port; each has its own path and token and refuses the others'", async () => {
    const spec = await serveRegistry([echo], { name: "engine", ctx: makeTestCtx() });
    stops.push(() => spec.stop());
    await spec.start();
    const approvals = await ApprovalServer.start({ asker: { ask: async () => ({ kind: "approve" }) } });
    stops.push(() => approvals.stop());
    const hooks = await HookServer.start({ decide: () => ({ decision: "allow" }) });
    stops.push(() => hooks.stop());

    const urls = [spec.url!, approvals.url, hooks.url];
    const ports = new Set(urls.map((u) => new URL(u).port));
    expect(ports.size).toBe(1);
    expect(new Set(urls.map((u) => new URL(u).pathname)).size).toBe(3);
    const port = Number([...ports][0]);

    const surfaces = [
      { name: "registry", url: spec.url!, headers: spec.authHeaders, body: JSON.stringify(INITIALIZE) },
      { name: "approvals", url: approvals.url, headers: approvals.authHeaders, body: JSON.stringify(INITIALIZE) },
      { name: "hooks", url: hooks.url, headers: hooks.authHeaders, body: JSON.stringify({ tool_name: "Read", tool_input: {} }) },
    ];
    for (const s of surfaces) {
      const ok = await post(s.url, { ...s.headers }, s.body);
      expect(ok.status, `${s.name}: ${ok.text}`).toBe(200);
      expect((await post(s.url, { ...s.headers, Host: "evil.example.com" }, s.body)).status, `${s.name} foreign Host`).toBe(403);
      expect((await post(s.url, { ...s.headers, Origin: "http://evil.example.com" }, s.body)).status, `${s.name} foreign Origin`).toBe(403);
      expect((await post(s.url, {}, s.body)).status, `${s.name} no token`).toBe(401);
      for (const other of surfaces.filter((o) => o !== s)) {
        expect((await post(s.url, { ...other.headers }, s.body)).status, `${s.name} with ${other.name}'s token`).toBe(401);
      }
    }
    // Real clients on top.
    await using client = await sdkClientFor(spec.url!, { ...spec.authHeaders });
    expect((await client.callTool({ name: "echo", arguments: { text: "shared" } })).content).toEqual([{ type: "text", text: "shared" }]);

    // Stopping one keeps the others serving; the port goes when the last one leaves.
    await approvals.stop();
    expect((await post(spec.url!, { ...spec.authHeaders }, JSON.stringify(INITIALIZE))).status).toBe(200);
    await hooks.stop();
    expect(await portIsFree(port)).toBe(false);
    await client.close();
    await spec.stop();
    expect(await portIsFree(port)).toBe(true);
  });

  it("a fixed port gets a listener of its own", async () => {
    const shared = await serveRegistry([echo], { name: "engine", ctx: makeTestCtx() });
    stops.push(() => shared.stop());
    const probe = await serveRegistry([echo], { name: "probe", ctx: makeTestCtx() });
    const free = Number(new URL(probe.url!).port) === Number(new URL(shared.url!).port) ? 0 : -1;
    await probe.stop();
    expect(free).toBe(0);
    const { holdPort } = await import("./helpers.js");
    const h = await holdPort();
    await h.close();
    const fixed = await serveRegistry([echo], { name: "fixed", ctx: makeTestCtx(), port: h.port });
    stops.push(() => fixed.stop());
    expect(new URL(fixed.url!).port).toBe(String(h.port));
    expect(new URL(fixed.url!).port).not.toBe(new URL(shared.url!).port);
  });

  it("a route mounted under a prefix, with a cookie-style check of its own (the inbox page's shape), sees its path below the prefix", async () => {
    const lease = await leaseListener({ host: "127.0.0.1", port: 0 });
    stops.push(() => lease.release());
    const route = lease.listener.mount({
      path: "/inbox",
      prefix: true,
      refusal: "json",
      auth: {
        kind: "check",
        check: (req) =>
          /(?:^|; )inbox=let-me-in(?:;|$)/.test(req.headers.cookie ?? "")
            ? { ok: true }
            : { ok: false, code: "token_missing", status: 401, message: "Unauthorized: the inbox needs its cookie" },
      },
      handler: (req, res) => {
        const item = /^\/items\/([^/?]+)$/.exec(req.url ?? "");
        if (!item) return void res.writeHead(404).end();
        res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ id: item[1], url: req.url }));
      },
    });
    route.setServing(true);
    const base = `http://127.0.0.1:${lease.listener.port}/inbox`;
    const ok = await fetch(`${base}/items/7`, { headers: { Cookie: "inbox=let-me-in" } });
    expect(await ok.json()).toEqual({ id: "7", url: "/items/7" });
    const refused = await fetch(`${base}/items/7`);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ error: "Unauthorized: the inbox needs its cookie" });
    const foreign = await fetch(`${base}/items/7`, { headers: { Cookie: "inbox=let-me-in", Origin: "http://evil.example.com" } });
    expect(foreign.status).toBe(403);
    await foreign.text();
    route.unmount();
  });
});
