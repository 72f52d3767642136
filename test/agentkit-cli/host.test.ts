/**
 * @module test/agentkit-cli/host.test
 * `agentkit host` as a real subprocess: its usage errors (each one line, exit
 * 2, no secret echoed), the `--json` health line, tokens from a real local
 * authorization server checked (wrong audience refused), and a SIGTERM drain
 * in which the call in flight finishes, a new request is refused, and the
 * process exits 0.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { v2Client } from "../helpers/v2-client.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAuthServer, type TestAuthServer } from "../helpers/oauth-server.js";
import { FIXTURES, ServeProcess, requireBuild, runAgentkit } from "./agentkit-process.js";
import { modernCall, post } from "../express/kit.js";
import { until } from "../helpers/wait.js";

const MODULE = join(FIXTURES, "hosted-slow-module.mjs");
const ENV_MODULE = join(FIXTURES, "hosted-env-module.mjs");
const RESOURCE = "http://127.0.0.1/mcp";
const FLEET_KEY = "fleet-key-for-the-host-cli-test-0123456789abcdef";

let as: TestAuthServer;
let dir: string;
beforeAll(async () => {
  requireBuild();
  as = await startAuthServer({ defaultAudience: RESOURCE });
  dir = mkdtempSync(join(tmpdir(), "agentkit-host-test-"));
});
afterAll(async () => {
  await as?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Exactly one line on stderr, nothing on stdout, exit code 2. */
async function usageError(args: string[], env: Record<string, string> = {}): Promise<string> {
  const r = await runAgentkit(["host", ...args], { env });
  expect(r.stdout).toBe("");
  expect(r.code).toBe(2);
  expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  return r.stderr.trimEnd();
}

/** `agentkit host` on a free port with --json; resolves once its health line is out. */
async function startHost(
  extra: string[] = [],
  env: Record<string, string> = { AGENTKIT_FLEET_KEY: FLEET_KEY },
  module = MODULE,
): Promise<ServeProcess & { health: Record<string, unknown> }> {
  const p = await ServeProcess.start([module, "--port", "0", "--resource", RESOURCE, "--issuer", as.issuer, "--json", ...extra], {
    command: "host",
    ready: /"event":"listening"/,
    env,
  });
  const health = JSON.parse(p.stdout.split("\n")[0]!) as Record<string, unknown>;
  return Object.assign(p, { health });
}

/**
 * Call the env module's `hold` tool (it says "hold started" on stderr, then
 * takes `ms`) on `host` over the 2026-07-28 wire, and resolve once the tool is
 * running: the call is in flight on the host, its HTTP answer still to come.
 */
async function holdInFlight(
  host: Awaited<ReturnType<typeof startHost>>,
  token: string,
  ms: number,
): Promise<{ answer: Promise<Response> }> {
  const { body, headers } = modernCall("hold", { ms });
  const answer = post(host.health.url as string, body, { ...headers, authorization: `Bearer ${token}` });
  answer.catch(() => undefined); // the caller awaits it; a cut connection is what one test expects
  await until(() => host.stderr.includes("hold started"), "the hold call to start on the host");
  return { answer };
}

/** Resolves once `host` refuses a new request (503, or its listener closed: connection refused): it took the signal and is draining. */
async function untilRefused(host: Awaited<ReturnType<typeof startHost>>, token: string): Promise<void> {
  await until(
    () =>
      post(host.health.url as string, "{}", { authorization: `Bearer ${token}` }).then(
        (r) => r.status === 503,
        (err: Error) => (err.cause as NodeJS.ErrnoException | undefined)?.code === "ECONNREFUSED",
      ),
    "the host to refuse a new request (503, or connection refused: draining)",
  );
}

describe("agentkit host: the command line", () => {
  it("--help documents the options and exits 0", async () => {
    const r = await runAgentkit(["host", "--help"]);
    expect(r.code).toBe(0);
    for (const o of [
      "--port <N>",
      "--resource <URL>",
      "--issuer <URL>",
      "--bind <ADDR>",
      "--fleet-key-file <PATH>",
      "--fleet-key-env <VAR>",
      "--store <URL>",
      "--store-env <VAR>",
      "--json",
      "--drain-ms <N>",
    ])
      expect(r.stdout).toContain(o);
    expect((await runAgentkit(["--help"])).stdout).toContain("agentkit host <module-file> --port N --resource URL --issuer URL");
  });

  it("refuses a command line that cannot run, one line each, exit 2", async () => {
    expect(await usageError([MODULE, "--resource", RESOURCE, "--issuer", as.issuer])).toMatch(/--port is required/);
    expect(await usageError([MODULE, "--port", "70000", "--resource", RESOURCE, "--issuer", as.issuer])).toMatch(
      /--port must be a whole number from 0 to 65535, got '70000'/,
    );
    expect(await usageError([MODULE, "--port", "0", "--issuer", as.issuer])).toMatch(
      /--resource is required, e\.g\. --resource https:\/\/tools\.example\.com\/mcp/,
    );
    expect(await usageError([MODULE, "--port", "0", "--resource", "tools.example.com", "--issuer", as.issuer])).toMatch(
      /--resource must be an absolute http\(s\) URL/,
    );
    expect(await usageError(["--port", "0", "--resource", RESOURCE, "--issuer", as.issuer])).toMatch(/name the built module file to host/);
    expect(await usageError([MODULE, "--port", "0", "--resource", RESOURCE, "--issuer", as.issuer, "--fleet-key", "x"])).toMatch(
      /unknown option '--fleet-key'/,
    );
    const withPassword = await usageError([
      MODULE,
      "--port",
      "0",
      "--resource",
      RESOURCE,
      "--issuer",
      as.issuer,
      "--store",
      "postgres://tools:s3cret@db.internal/agentkit",
    ]);
    expect(withPassword).toMatch(/the URL holds a password.*--store-env VAR, or the password in PGPASSWORD/);
    expect(withPassword).not.toContain("s3cret");
    expect(await usageError([MODULE, "--port", "0", "--resource", RESOURCE, "--issuer", as.issuer, "--store", "mysql://db/x"])).toMatch(
      /the database must be a postgres:\/\/ or postgresql:\/\/ URL/,
    );
  });

  it("takes the fleet key only from a 0600 file or the environment, and never echoes it", async () => {
    const file = join(dir, "fleet.key");
    writeFileSync(file, `${FLEET_KEY}\n`, { mode: 0o644 });
    chmodSync(file, 0o644);
    const base = [MODULE, "--port", "0", "--resource", RESOURCE, "--issuer", as.issuer];
    const open = await usageError([...base, "--fleet-key-file", file]);
    expect(open).toMatch(/is readable by others \(mode 644\); it holds a secret: chmod 600/);
    expect(open).not.toContain(FLEET_KEY);
    const short = await usageError([...base, "--fleet-key-env", "SHORT_KEY"], { SHORT_KEY: "tooshort" });
    expect(short).toMatch(/shorter than 32 bytes; make one with: openssl rand -base64 32/);
    expect(short).not.toContain("tooshort");
    expect(await usageError([...base, "--fleet-key-env", "UNSET_FLEET_KEY_VAR"])).toMatch(/the variable UNSET_FLEET_KEY_VAR is not set/);
    chmodSync(file, 0o600);
    await using host = await startHost(["--fleet-key-file", file], {});
    expect(host.health).toMatchObject({ event: "listening", pid: host.child.pid, fleetKey: `file ${file}` });
    expect(`${host.stdout}${host.stderr}`).not.toContain(FLEET_KEY);
  });
});

describe("agentkit host: the fleet key stays in the host", () => {
  it.each([
    ["AGENTKIT_FLEET_KEY", [] as string[]],
    ["MY_FLEET_SECRET", ["--fleet-key-env", "MY_FLEET_SECRET"]],
  ])("read from %s, it is gone from the environment: neither the module nor a child it spawns sees it", async (variable, extra) => {
    await using host = await startHost(extra, { [variable]: FLEET_KEY }, ENV_MODULE);
    expect(host.health).toMatchObject({ fleetKey: `env ${variable}` });
    const client = await v2Client(host.health.url as string, { token: await as.mint({ audience: RESOURCE }), version: "2026-07-28" });
    try {
      const result = await client.callTool({ name: "env_report", arguments: { name: variable } });
      expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual({ self: "unset", child: "unset" });
    } finally {
      await client.close();
    }
  });

  it("a stray positional argument is not echoed (it may be the secret)", async () => {
    const line = await usageError([
      MODULE,
      "s3cret-typed-in-the-wrong-place",
      "--port",
      "0",
      "--resource",
      RESOURCE,
      "--issuer",
      as.issuer,
    ]);
    expect(line).toMatch(/unexpected extra argument #2 /);
    expect(line).not.toContain("s3cret-typed-in-the-wrong-place");
  });
});

describe("agentkit host: serving", () => {
  it("--json prints one health line (pid, url, resource, issuer; no secret), serves a token for its resource and refuses another audience with 401", async () => {
    await using host = await startHost();
    expect(host.health).toMatchObject({
      event: "listening",
      pid: host.child.pid,
      module: "HostedSlowModule",
      resource: RESOURCE,
      issuer: as.issuer,
      fleetKey: "env AGENTKIT_FLEET_KEY",
    });
    expect(host.health.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(host.stdout.trimEnd().split("\n")).toHaveLength(1);
    const url = host.health.url as string;
    const client = await v2Client(url, { token: await as.mint({ audience: RESOURCE }), version: "2026-07-28" });
    try {
      const result = await client.callTool({ name: "slow_report", arguments: { ms: 1 } });
      expect((result.content as Array<{ text: string }>)[0]!.text).toBe(`report done after 1 ms on pid ${host.child.pid}`);
    } finally {
      await client.close();
    }
    const wrong = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${await as.mint({ audience: "https://elsewhere.example/mcp" })}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: "{}",
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toMatch(
      /^Bearer .*error="invalid_token".*resource_metadata="http:\/\/127\.0\.0\.1\/mcp\/\.well-known\/oauth-protected-resource"/,
    );
    expect(`${host.stdout}${host.stderr}`).not.toContain(FLEET_KEY);
  });

  it("SIGTERM drains: the call in flight finishes, a new request is refused, the process exits 0 and says so", async () => {
    await using host = await startHost([], { AGENTKIT_FLEET_KEY: FLEET_KEY }, ENV_MODULE);
    const token = await as.mint({ audience: RESOURCE });
    const { answer } = await holdInFlight(host, token, 1500);
    host.child.kill("SIGTERM");
    await untilRefused(host, token);
    const res = await answer;
    expect(res.status).toBe(200);
    expect((await res.json()) as unknown).toMatchObject({ result: { content: [{ type: "text", text: "held 1500 ms" }] } });
    const exit = await host.exit();
    expect(exit).toEqual({ code: 0, signal: null });
    const stopped = JSON.parse(host.stdout.trimEnd().split("\n").at(-1)!) as Record<string, unknown>;
    expect(stopped).toMatchObject({ event: "stopped", signal: "SIGTERM", drained: true, abandoned: 0 });
    expect(host.stderr).toMatch(/stopped on SIGTERM after \d+ request\(s\); every call in flight finished/);
  });

  it("a second SIGTERM while draining exits at once with code 1, saying what it did not wait for", async () => {
    await using host = await startHost([], { AGENTKIT_FLEET_KEY: FLEET_KEY }, ENV_MODULE);
    const token = await as.mint({ audience: RESOURCE });
    // 30 s: a call the drain would wait for, far longer than the test's own timeout.
    const answer = (await holdInFlight(host, token, 30_000)).answer.then(
      () => "finished",
      () => "cut off",
    );
    host.child.kill("SIGTERM");
    await untilRefused(host, token); // the first SIGTERM was taken: the host is draining
    host.child.kill("SIGTERM");
    expect(await host.exit()).toEqual({ code: 1, signal: null });
    expect(await answer).toBe("cut off");
    expect(host.stderr).toMatch(/agentkit host: SIGTERM again — exiting without waiting for /);
    expect(host.stdout).not.toMatch(/"event":"stopped"/);
  });

  it("a drain past --drain-ms cuts the call: the client gets a 503 JSON-RPC error naming it (not an empty 499), and the stopped line counts it abandoned", async () => {
    await using host = await startHost(["--drain-ms", "300"], { AGENTKIT_FLEET_KEY: FLEET_KEY }, ENV_MODULE);
    const { answer } = await holdInFlight(host, await as.mint({ audience: RESOURCE }), 30_000);
    host.child.kill("SIGTERM");
    const res = await answer;
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32000, message: expect.stringContaining("stopped before the call finished") },
    });
    expect(await host.exit()).toEqual({ code: 0, signal: null });
    expect(JSON.parse(host.stdout.trimEnd().split("\n").at(-1)!)).toMatchObject({
      event: "stopped",
      signal: "SIGTERM",
      drained: false,
      abandoned: 1,
    });
    expect(host.stderr).toMatch(/1 call\(s\) still running after --drain-ms 300 were cut/);
  });

  it("behind a proxy on this machine, refused requests are counted per client (X-Forwarded-For), not for the proxy's address as a whole", async () => {
    await using host = await startHost();
    const url = host.health.url as string;
    const junk = (client: string) =>
      fetch(url, {
        method: "POST",
        headers: {
          authorization: "Bearer junk",
          "x-forwarded-for": client,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: "{}",
      }).then((r) => r.status);
    const statuses: number[] = [];
    for (let i = 0; i < 121; i++) statuses.push(await junk("203.0.113.7"));
    expect(statuses.slice(0, 120).every((s) => s === 401)).toBe(true);
    expect(statuses[120]).toBe(429);
    expect(await junk("203.0.113.8")).toBe(401);
  });
});
