/**
 * @module test/agentkit-cli/host-dev.test
 * `agentkit host --dev` as a real subprocess (issue #43 point 1): refused
 * off loopback, under NODE_ENV=production and beside --issuer/--resource
 * (one line, exit 2); on 127.0.0.1 it warns on stderr naming the 0600 token
 * files (the token itself on neither stream), `agentkit call` with the token
 * from the file answers in both protocol eras, and SIGTERM removes the files.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FIXTURES, ServeProcess, requireBuild, runAgentkit } from "./agentkit-process.js";

const MODULE = join(FIXTURES, "hosted-slow-module.mjs");

/** Exactly one line on stderr, nothing on stdout, exit code 2. */
async function usageError(args: string[], env: Record<string, string> = {}): Promise<string> {
  const r = await runAgentkit(["host", MODULE, "--port", "0", "--dev", ...args], { env });
  expect(r.stdout).toBe("");
  expect(r.code).toBe(2);
  expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  return r.stderr.trimEnd();
}

describe("agentkit host --dev", () => {
  it("is refused off loopback, under NODE_ENV=production and beside an issuer, one line each", async () => {
    requireBuild();
    expect(await usageError(["--bind", "0.0.0.0"])).toBe(
      "agentkit host: --dev serves on loopback only (its tokens are for this machine), and --bind 0.0.0.0 is not a loopback address; use --bind 127.0.0.1 (the default) or ::1, or drop --dev and give --resource and --issuer",
    );
    expect(await usageError([], { NODE_ENV: "production" })).toMatch(
      /^agentkit host: --dev is refused because NODE_ENV=production: development mode issues its own access tokens to anyone on this machine and must never be shipped; configure an authorization server instead/,
    );
    expect(await usageError(["--issuer", "https://auth.example.com"])).toMatch(
      /^agentkit host: --issuer is not taken with --dev: development mode issues its own tokens/,
    );
    expect(await usageError(["--resource", "https://tools.example.com/mcp"])).toMatch(/^agentkit host: --resource is not taken with --dev/);
  });

  it("serves on 127.0.0.1, names the token files on stderr (never the token), answers agentkit call in both eras, and removes the files on SIGTERM", async () => {
    requireBuild();
    await using host = await ServeProcess.start([MODULE, "--port", "0", "--dev", "--json"], {
      command: "host",
      ready: /"event":"listening"/,
    });
    const health = JSON.parse(host.stdout.split("\n")[0]!) as {
      url: string;
      resource: string;
      dev: { authorization: string; mcpConfig: string };
      issuer?: string;
    };
    expect(health.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(health.resource).toBe(health.url);
    expect(health.issuer).toBeUndefined();
    const { authorization, mcpConfig } = health.dev;
    for (const f of [authorization, mcpConfig]) expect(statSync(f).mode & 0o777).toBe(0o600);
    const bearer = readFileSync(authorization, "utf8").trim();
    const token = bearer.slice("Bearer ".length);
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    await expect.poll(() => host.stderr).toContain(`mcpRouter: DEVELOPMENT MODE (dev: true) for ${health.url}`);
    expect(host.stderr).toContain(`The current token is in ${authorization}`);
    expect(host.stderr).not.toContain("no fleet key");

    for (const protocol of ["2026-07-28", "2025-11-25"]) {
      const r = await runAgentkit(
        [
          "call",
          "slow_report",
          "--args",
          '{"ms":1}',
          "--url",
          health.url,
          "--header-env",
          "Authorization=AGENTKIT_DEV_AUTH",
          "--protocol",
          protocol,
        ],
        { env: { AGENTKIT_DEV_AUTH: bearer } },
      );
      expect(r.stderr, protocol).toBe("");
      expect(r.stdout, protocol).toMatch(/^report done after 1 ms on pid \d+/);
      expect(r.code, protocol).toBe(0);
      // The token's scopes are the module's: the tool that needs reports:write answers too.
      const scoped = await runAgentkit(
        ["call", "scoped_report", "--url", health.url, "--header-env", "Authorization=AGENTKIT_DEV_AUTH", "--protocol", protocol],
        { env: { AGENTKIT_DEV_AUTH: bearer } },
      );
      expect(scoped.stdout, protocol).toMatch(/^written on pid \d+/);
    }
    const without = await runAgentkit(["call", "slow_report", "--args", '{"ms":1}', "--url", health.url]);
    expect(without.code).not.toBe(0);
    expect(without.stderr).toMatch(/401/);

    const stopped = await host.stop("SIGTERM");
    expect(stopped.code).toBe(0);
    expect(host.stdout + host.stderr).not.toContain(token);
    expect(existsSync(authorization)).toBe(false);
    expect(existsSync(mcpConfig)).toBe(false);
  }, 90_000);
});
