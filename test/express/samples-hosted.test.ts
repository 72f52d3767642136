/**
 * @module test/express/samples-hosted.test
 * samples/hosted as a user runs it: the built server sample (mcpRouter +
 * jwtVerifier on express) in its own process, tokens from a real local
 * authorization server, and the built client sample (MCPClient with
 * client_credentials) printing its natural JSON.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/nginx.js";
import { startAuthServer, type TestAuthServer } from "../helpers/oauth-server.js";
import { ROOT, runSample } from "../helpers/run-sample.js";
import { killGroup } from "../agentkit-cli/agentkit-process.js";
import { until } from "../helpers/wait.js";

const OPS = { id: "ops-bot", secret: "sample-secret-value", scopes: ["releases:read"] };

let as: TestAuthServer;
beforeAll(async () => {
  as = await startAuthServer({ clients: [OPS] });
});
afterAll(() => as?.close());

describe("samples/hosted", () => {
  it("the server sample serves the release tools behind the authorization server; the client sample gets a token, lists and calls, and prints JSON", async () => {
    const resource = `http://127.0.0.1:${await freePort()}/mcp`;
    const server = spawn(process.execPath, [join(ROOT, "build/samples/hosted/server.js")], {
      cwd: ROOT,
      env: { ...process.env, RESOURCE: resource, ISSUER: as.issuer },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let out = "";
    let err = "";
    server.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
    server.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
    try {
      await until(
        () => {
          if (out.includes("\n")) return true;
          if (server.exitCode !== null) throw new Error(`exit ${server.exitCode}`);
          return false;
        },
        () => `the server sample to start: ${out}${err}`,
        20_000,
      );
      expect(JSON.parse(out)).toEqual({
        listening: resource,
        pid: server.pid,
        metadata: `${resource}/.well-known/oauth-protected-resource`,
      });
      const printed = JSON.parse(
        await runSample("hosted/client", { MCP_URL: resource, CLIENT_ID: OPS.id, CLIENT_SECRET: OPS.secret }),
      ) as Record<string, unknown>;
      // The token carries releases:read only: ship_release (releases:write) is not listed; read_result (the module's
      // result budget, on by default) needs no scope and reads only this client's own results.
      expect(printed).toEqual({
        tools: ["list_releases", "read_result", "who_am_i"],
        whoAmI: { clientId: OPS.id, scopes: ["releases:read"], pid: server.pid },
        releases: ["1.4.0", "1.4.1"],
      });
      expect(as.issued).toBe(1);
      server.kill("SIGTERM");
      const [code] = await new Promise<[number | null]>((r) => server.once("exit", (c) => r([c])));
      expect(code).toBe(0);
      expect(err).toBe("");
    } finally {
      await killGroup(server);
    }
  });
});
