/**
 * @module test/express/entry.test
 * The `arc-agentkit/express` entry point: its export names (a reviewed list),
 * its place in the package's `exports` map, and — in a scratch project
 * without express and the SDK's express adapter — it still imports, and
 * `mcpRouter()` throws `MissingPeerError` naming the install line, while
 * `arc-agentkit/mcp`'s `MCPClient` does not need either. Needs `npm run build`.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { declaredExports } from "../core/surface.js";
import { runIn, scratchProject } from "../helpers/scratch-project.js";
import { NODE, ROOT } from "../mcp-client/support.js";

let scratch: string | undefined;
afterEach(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

describe("arc-agentkit/express", () => {
  it("exports exactly these names", () => {
    expect(declaredExports(join(ROOT, "src/express/index.ts"))).toEqual([
      "type AccessTokenInfo",
      "type DevTokenFiles",
      "hostedCaller",
      "hostedServer",
      "type HostedServerOptions",
      "jwtVerifier",
      "type JwtVerifierOptions",
      "type ListenLimits",
      "mcpRouter",
      "type McpRouter",
      "type McpRouterDevOptions",
      "type McpRouterOptions",
      "type McpRouterTarget",
      "type RateLimit",
    ]);
  });

  it("is an entry of the exports map, with types, and @modelcontextprotocol/express is an optional peer", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      exports: Record<string, unknown>;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
      devDependencies: Record<string, string>;
    };
    expect(pkg.exports["./express"]).toEqual({ types: "./dist/express/index.d.ts", default: "./dist/express/index.js" });
    expect(pkg.peerDependencies["@modelcontextprotocol/express"]).toBe("^2.0.2");
    expect(pkg.peerDependenciesMeta["@modelcontextprotocol/express"]).toEqual({ optional: true });
    expect(pkg.devDependencies["@modelcontextprotocol/express"]).toBe("2.0.2");
  });

  it("without express and @modelcontextprotocol/express: the entry imports, mcpRouter names the install line, MCPClient's entry still loads", () => {
    scratch = scratchProject(ROOT, ["express", "@modelcontextprotocol/express"]);
    const out = runIn<Record<string, unknown>>(
      NODE,
      scratch,
      `
      const out = {};
      const hosting = await import("arc-agentkit/express");
      out.exports = Object.keys(hosting).sort();
      const { tool } = await import("arc-agentkit");
      const echo = tool({ name: "echo", description: "Echo.", sideEffecting: false }, () => "ok");
      try {
        hosting.mcpRouter([echo], { resource: "https://tools.example.com/mcp", authorizationServers: ["https://auth.example.com"], verifyAccessToken: () => { throw new Error("no"); } });
      } catch (e) { out.error = { name: e.name, code: e.code, installLine: e.installLine, message: e.message }; }
      const mcp = await import("arc-agentkit/mcp");
      out.client = typeof mcp.MCPClient;
      console.log(JSON.stringify(out));`,
    );
    expect(out.exports).toEqual(["hostedCaller", "hostedServer", "jwtVerifier", "mcpRouter"]);
    expect(out.error).toMatchObject({
      name: "MissingPeerError",
      code: "missing_peer",
      installLine: "npm install express @modelcontextprotocol/express @modelcontextprotocol/server",
    });
    expect(String((out.error as { message: string }).message)).toContain(
      "mcpRouter (arc-agentkit/express) needs the optional peer dependency express",
    );
    expect(out.client).toBe("function");
  }, 90_000);
});
