/**
 * @module test/express/router-edges.test
 * Edges of a hosted router an outside review found: the RFC 9728 document
 * names each authorization server exactly as configured (issuers compare
 * exactly, RFC 8414 §3.3); an `http:` resource is refused off loopback (a
 * bearer token must not cross the network in clear); an app's own, larger
 * JSON parser in front of the router does not lift `maxBodyBytes`.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { tool } from "../../src/index.js";
import { mcpRouter, type McpRouter } from "../../src/express/index.js";
import { closeAll, hosted, LATER, modernCall, post } from "./kit.js";

afterEach(closeAll);

const echo = tool(
  { name: "echo", description: "Echo a text.", sideEffecting: false, input: { type: "object", properties: { text: { type: "string" } } } },
  ({ text }: { text?: string }) => text ?? "",
);
const base = {
  authorizationServers: ["https://auth.example.com"],
  verifyAccessToken: () => ({ clientId: "c", scopes: [], expiresAt: LATER(), resource: "https://tools.example.com/mcp" }),
};

function optionError(options: object): unknown {
  try {
    mcpRouter([echo], options as never);
  } catch (err) {
    return err;
  }
  return undefined;
}

describe("mcpRouter: the protected-resource metadata", () => {
  it("advertises each authorization server exactly as configured, a trailing slash kept", async () => {
    const h = await hosted([echo], { authorizationServers: ["https://tenant.auth0.example/", "https://auth.example.com/realms/ops"] });
    const doc = (await (await fetch(`${h.url}/.well-known/oauth-protected-resource`)).json()) as { authorization_servers: string[] };
    expect(doc.authorization_servers).toEqual(["https://tenant.auth0.example/", "https://auth.example.com/realms/ops"]);
  });
});

describe("mcpRouter: an http resource", () => {
  it("is refused off loopback (naming the option), and allowed on a loopback host", () => {
    expect(optionError({ ...base, resource: "http://tools.example.com/mcp" })).toMatchObject({
      name: "OptionsError",
      option: "resource",
      message: expect.stringContaining("'resource' must be https off loopback"),
    });
    for (const resource of ["http://127.0.0.1:8081/mcp", "http://localhost/mcp", "http://[::1]:9/mcp", "https://tools.example.com/mcp"])
      expect(optionError({ ...base, resource }), resource).toBeUndefined();
  });
});

describe("mcpRouter: the body limit behind the app's own parser", () => {
  it("an express.json({ limit: '50mb' }) in front of the router does not lift maxBodyBytes: 413", async () => {
    const app = express();
    app.use(express.json({ limit: "50mb" }));
    const server: Server = await new Promise((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const router: McpRouter = mcpRouter([echo], {
      ...base,
      resource: url,
      maxBodyBytes: 2048,
      verifyAccessToken: () => ({ clientId: "c", scopes: [], expiresAt: LATER(), resource: url }),
    });
    app.use("/mcp", router);
    try {
      const small = modernCall("echo", { text: "x".repeat(100) });
      expect((await post(url, small.body, { ...small.headers, authorization: "Bearer t" })).status).toBe(200);
      const { body, headers } = modernCall("echo", { text: "x".repeat(5000) });
      const res = await post(url, body, { ...headers, authorization: "Bearer t" });
      expect(res.status).toBe(413);
      expect(await res.json()).toMatchObject({ error: { message: expect.stringContaining("larger than 2048 bytes (maxBodyBytes)") } });
    } finally {
      await router.stop();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe("mcpRouter: CORS origins", () => {
  it("match exactly — scheme, host and port: the same hostname over http or on another port is refused 403", async () => {
    const h = await hosted([echo], { cors: { origins: ["https://app.example.com"] } });
    h.tokens.set("t", { clientId: "c", scopes: [], expiresAt: LATER(), resource: h.url });
    const list = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };
    const from = (origin: string) => post(h.url, list, { authorization: "Bearer t", "mcp-protocol-version": "2025-11-25", origin });
    const good = await from("https://app.example.com");
    expect(good.status).toBe(200);
    expect(good.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    for (const origin of ["http://app.example.com", "https://app.example.com:8443", "https://evil.app.example.com"]) {
      const res = await from(origin);
      expect(res.status, origin).toBe(403);
      expect(res.headers.get("access-control-allow-origin"), origin).toBeNull();
    }
  });

  it("a bare hostname is refused when the router is made, naming the origin form", () => {
    expect(optionError({ ...base, resource: "https://tools.example.com/mcp", cors: { origins: ["app.example.com"] } })).toMatchObject({
      name: "OptionsError",
      option: "cors",
      message: expect.stringContaining("origins like https://app.example.com"),
    });
    expect(
      optionError({ ...base, resource: "https://tools.example.com/mcp", cors: { origins: ["https://app.example.com/path"] } }),
    ).toMatchObject({ option: "cors" });
  });
});
