/**
 * @module test/express/dev-mode.test
 * `mcpRouter({ dev: true })` (issue #43 point 1): development mode issues
 * its own short-lived tokens, only on loopback, loudly. The refusals (each
 * naming why), a real call end to end through `MCPClient` in both protocol
 * eras with the token from its 0600 file, a token past its expiry refused
 * (vitest's clock), the warning naming the files and never the token, and
 * the files gone on close. Real express on a real 127.0.0.1 socket.
 */
import { readFileSync, readdirSync, statSync, existsSync } from "node:fs";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { tool } from "../../src/index.js";
import { OptionsError } from "../../src/errors/options.error.js";
import { mcpRouter, type McpRouter, type McpRouterDevOptions } from "../../src/express/index.js";
import { DEV_TOKEN_TTL_SEC } from "../../src/express/dev-issuer.js";
import { isLoopbackAddress } from "../../src/express/dev-refusal.js";
import { MCPClient, StreamableHttpServer } from "../../src/mcp/index.js";
import { modernCall, post } from "./kit.js";
import { runNode } from "../helpers/procs.js";
import { scaledMs } from "../helpers/wait.js";

const echo = tool(
  {
    name: "echo",
    description: "Echo.",
    sideEffecting: false,
    input: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
  },
  ({ text }: { text: string }) => `echo ${text}`,
);
const write = tool({ name: "write_report", description: "Needs reports:write.", scopes: ["reports:write"] }, () => "written");

/** How many renewals the file reader waits to see. */
const READER_RENEWALS = 200;
/**
 * Run by `node -e <this> <authorization file> <MCP config file> <ms>`: reads both files in a loop until it has seen
 * READER_RENEWALS new tokens or `ms` passed, counting a file missing (ENOENT) and one half-written (an authorization
 * file not "Bearer …\n", a config that does not parse); prints the counts, never the contents.
 */
const FILE_READER = `
const { readFileSync } = require("node:fs");
const [auth, config, ms] = process.argv.slice(1);
let missing = 0, torn = 0, reads = 0, renewalsSeen = 0, last;
const end = Date.now() + Number(ms);
while (Date.now() < end && renewalsSeen < ${READER_RENEWALS}) {
  for (const file of [auth, config]) {
    let text;
    try { text = readFileSync(file, "utf8"); } catch (e) { if (e.code !== "ENOENT") throw e; missing++; continue; }
    reads++;
    if (file === auth) {
      if (!/^Bearer \\S+\\n$/.test(text)) { torn++; continue; }
      if (last !== undefined && text !== last) renewalsSeen++;
      last = text;
    } else {
      try { JSON.parse(text); } catch { torn++; }
    }
  }
}
console.log(JSON.stringify({ missing, torn, reads, renewalsSeen }));
`;

const opened: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  for (const close of opened.splice(0).reverse()) await close();
});

/** What was written to stderr since the test began (still written there too). */
let stderr: string[] = [];
beforeEach(() => {
  stderr = [];
  const real = process.stderr.write.bind(process.stderr);
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
    stderr.push(String(chunk));
    return real(chunk, ...(rest as []));
  });
});

/** A dev router on a fresh express app bound to 127.0.0.1. */
async function devHosted(options: Partial<McpRouterDevOptions> = {}): Promise<{ url: string; router: McpRouter }> {
  const app = express();
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const router = mcpRouter([echo, write], { dev: true, resource: url, ...options });
  app.use("/mcp", router);
  opened.push(async () => {
    await router.stop();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });
  await router.ready;
  return { url, router };
}

function refusal(options: unknown): OptionsError {
  try {
    mcpRouter([echo], options as McpRouterDevOptions);
  } catch (err) {
    expect(err).toBeInstanceOf(OptionsError);
    return err as OptionsError;
  }
  throw new Error("mcpRouter accepted the options");
}

describe("mcpRouter({ dev: true }): refused where it could ship", () => {
  it("under NODE_ENV=production, off loopback, beside an issuer of the user's, and for a dev that is not a boolean", () => {
    vi.stubEnv("NODE_ENV", "production");
    const prod = refusal({ dev: true, resource: "http://127.0.0.1:8081/mcp" });
    expect(prod.option).toBe("dev");
    expect(prod.message).toMatch(
      /^mcpRouter: dev: true is refused because NODE_ENV=production: development mode issues its own access tokens .* must never be shipped; configure an authorization server instead/,
    );
    vi.unstubAllEnvs();

    expect(refusal({ dev: true, resource: "https://tools.example.com/mcp" }).message).toMatch(
      /dev: true serves on loopback only: 'resource' must be on 127\.0\.0\.1, localhost or \[::1\].*got string "https:\/\/tools\.example\.com\/mcp"/,
    );
    expect(refusal({ dev: true, resource: "http://127.0.0.1:8081/mcp", allowedHosts: ["tools.example.com"] }).message).toMatch(
      /'allowedHosts' may name only 127\.0\.0\.1, localhost or \[::1\], got 'tools\.example\.com'/,
    );
    expect(
      refusal({ dev: true, resource: "http://127.0.0.1:8081/mcp", authorizationServers: ["https://auth.example.com"] }).message,
    ).toMatch(/'authorizationServers' is not taken with dev: true \(the router issues its own tokens\)/);
    expect(refusal({ dev: true, resource: "http://127.0.0.1:8081/mcp", verifyAccessToken: () => ({}) }).message).toMatch(
      /'verifyAccessToken' is not taken with dev: true/,
    );
    expect(refusal({ dev: "yes", resource: "http://127.0.0.1:8081/mcp" }).message).toMatch(
      /'dev' must be true \(development mode.*\) or false, got string "yes"/,
    );
  });

  it("a server bound off loopback is refused: the bound address decides, not the Host header", () => {
    // The router reads the listening socket's address; binding 0.0.0.0 here would break the tests' own loopback rule, so the predicate is checked directly.
    for (const a of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"]) expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ["0.0.0.0", "::", "10.0.0.5", "192.168.1.2", "::ffff:10.0.0.5", undefined])
      expect(isLoopbackAddress(a), String(a)).toBe(false);
  });
});

describe("mcpRouter({ dev: true }) on 127.0.0.1", () => {
  it("says loudly where the token is, never the token; the files are 0600 in a 0700 directory and gone on close", async () => {
    const { url, router } = await devHosted();
    const files = router.devFiles!;
    expect(files).toBeDefined();
    const warning = stderr.join("");
    expect(warning).toContain(`mcpRouter: DEVELOPMENT MODE (dev: true) for ${url}`);
    expect(warning).toContain("never ship it (refused when NODE_ENV=production)");
    expect(warning).toContain(files.authorization);
    expect(warning).toContain(`claude --mcp-config ${files.mcpConfig}`);
    const authorization = readFileSync(files.authorization, "utf8").trim();
    expect(authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    expect(warning).not.toContain(authorization.slice("Bearer ".length));
    expect(statSync(files.dir).mode & 0o777).toBe(0o700);
    for (const f of [files.authorization, files.mcpConfig]) expect(statSync(f).mode & 0o777).toBe(0o600);
    const config = JSON.parse(readFileSync(files.mcpConfig, "utf8")) as {
      mcpServers: Record<string, { type: string; url: string; headers: Record<string, string> }>;
    };
    expect(config.mcpServers).toEqual({ tools: { type: "http", url, headers: { Authorization: authorization } } });
    await router.stop();
    expect(existsSync(files.dir)).toBe(false);
  });

  for (const protocol of ["2026-07-28", "2025-11-25"] as const) {
    it(`MCPClient with the token from the file calls a tool, scoped ones included (${protocol})`, async () => {
      const { url, router } = await devHosted();
      const authorization = readFileSync(router.devFiles!.authorization, "utf8").trim();
      await using client = await MCPClient.start(new StreamableHttpServer({ url, headers: { Authorization: authorization }, protocol }));
      expect(client.protocolVersion).toBe(protocol);
      expect((await client.listTools()).map((t) => t.name).sort()).toEqual(["echo", "read_result", "write_report"]);
      expect(await client.callTool("echo", { text: "hi" })).toMatchObject({ content: [{ type: "text", text: "echo hi" }] });
      expect(await client.callTool("write_report", {})).toMatchObject({ content: [{ type: "text", text: "written" }] });
    });
  }

  it("a token past its 10 minutes is refused 401 naming the expiry and where the current one is", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { url, router } = await devHosted();
    const authorization = readFileSync(router.devFiles!.authorization, "utf8").trim();
    const { body, headers } = modernCall("echo", { text: "hi" });
    expect((await post(url, body, { ...headers, authorization })).status).toBe(200);
    vi.setSystemTime(Date.now() + (DEV_TOKEN_TTL_SEC - 5) * 1000);
    expect((await post(url, body, { ...headers, authorization })).status).toBe(200);
    vi.setSystemTime(Date.now() + 10_000);
    const late = await post(url, body, { ...headers, authorization });
    expect(late.status).toBe(401);
    expect(late.headers.get("www-authenticate")).toMatch(
      new RegExp(
        `error="invalid_token", error_description="the access token was refused: AccessTokenError: the token expired at \\S+; the current one is in ${router.devFiles!.authorization.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`,
      ),
    );
  });

  it("the token files are renewed every 5 minutes with a fresh token; the previous one stays good until its own expiry", async () => {
    vi.useFakeTimers({ toFake: ["Date", "setInterval", "clearInterval"] });
    const { url, router } = await devHosted();
    const first = readFileSync(router.devFiles!.authorization, "utf8").trim();
    vi.advanceTimersByTime((DEV_TOKEN_TTL_SEC / 2) * 1000);
    const second = readFileSync(router.devFiles!.authorization, "utf8").trim();
    expect(second).not.toBe(first);
    expect(JSON.parse(readFileSync(router.devFiles!.mcpConfig, "utf8"))).toMatchObject({
      mcpServers: { tools: { headers: { Authorization: second } } },
    });
    expect(statSync(router.devFiles!.authorization).mode & 0o777).toBe(0o600);
    const { body, headers } = modernCall("echo", { text: "hi" });
    for (const authorization of [first, second]) expect((await post(url, body, { ...headers, authorization })).status).toBe(200);
  });

  it("a renewal replaces each file in one step: a reader in another process never finds one missing or half-written", async () => {
    vi.useFakeTimers({ toFake: ["Date", "setInterval", "clearInterval"] });
    const { router } = await devHosted();
    const files = router.devFiles!;
    const reading = runNode(["-e", FILE_READER, files.authorization, files.mcpConfig, String(scaledMs(10_000))], {
      cwd: process.cwd(),
    });
    let settled = false;
    void reading.finally(() => (settled = true));
    // Renew (5 minutes of the fake clock each) until the reader has seen enough renewals or its time is up.
    while (!settled) {
      vi.advanceTimersByTime((DEV_TOKEN_TTL_SEC / 2) * 1000);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const read = await reading;
    expect(read.stderr).toBe("");
    const counts = JSON.parse(read.stdout) as { missing: number; torn: number; reads: number; renewalsSeen: number };
    expect(counts.renewalsSeen, "renewals the reader saw while reading").toBe(READER_RENEWALS);
    expect({ missing: counts.missing, torn: counts.torn }).toEqual({ missing: 0, torn: 0 });
    expect(readFileSync(files.mcpConfig, "utf8")).toContain(readFileSync(files.authorization, "utf8").trim());
    expect(readdirSync(files.dir).sort()).toEqual(["authorization", "mcp-config.json"]);
  });

  it("a token of another dev router (a restarted server) or a forged one is refused 401", async () => {
    const a = await devHosted();
    const b = await devHosted();
    const { body, headers } = modernCall("echo", { text: "hi" });
    const other = readFileSync(b.router.devFiles!.authorization, "utf8").trim();
    const refused = await post(a.url, body, { ...headers, authorization: other });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/not a development token of this router/);
    expect((await post(a.url, body, { ...headers, authorization: "Bearer a.b.c" })).status).toBe(401);
  });
});
