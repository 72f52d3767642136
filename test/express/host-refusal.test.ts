/**
 * @module test/express/host-refusal.test
 * The README's hosting example copied literally (`resource:
 * "https://tools.example.com/mcp"`) and called on 127.0.0.1 (issue #43
 * point 1): the 403 names the Host it got, the option that decides
 * (`allowedHosts`), what it holds now, and the fix. Real express on a real socket.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";
import { describe, expect, it } from "vitest";
import { tool } from "../../src/index.js";
import { mcpRouter } from "../../src/express/index.js";
import { LATER, modernCall, post } from "./kit.js";

const echo = tool({ name: "echo", description: "Echo.", sideEffecting: false }, () => "echo");
const RESOURCE = "https://tools.example.com/mcp";

describe("mcpRouter's Host check", () => {
  it("a Host outside allowedHosts: 403 naming the Host, allowedHosts, its value and the fix", async () => {
    const app = express();
    const router = mcpRouter([echo], {
      resource: RESOURCE,
      authorizationServers: ["https://auth.example.com"],
      verifyAccessToken: () => ({ clientId: "c", scopes: [], expiresAt: LATER(), resource: RESOURCE }),
    });
    app.use("/mcp", router);
    const server: Server = await new Promise((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
      const { body, headers } = modernCall("echo", {});
      const res = await post(url, body, { ...headers, authorization: "Bearer t" });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { message: string } }).error.message).toBe(
        "Invalid Host: 127.0.0.1. This router answers only for the hostnames in mcpRouter's 'allowedHosts' (now ['tools.example.com']: by default the hostname of 'resource'); call it by one of them, or add '127.0.0.1' to allowedHosts (and serve a 'resource' on it, since tokens are bound to the resource)",
      );
    } finally {
      await router.stop();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
