/**
 * @module test/mcp-client/conformance.test
 * The MCP conformance suite 0.1.16's client scenarios, each run against
 * arc-agentkit's MCPClient (test/fixtures/conformance/agentkit-client.mjs,
 * built from dist/) as a real subprocess the suite spawns; the suite starts
 * its own scenario servers (kept on 127.0.0.1 by a preload). One test per
 * scenario, so a regression names it; they run a few at a time.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "./support.js";
import { runNode } from "../helpers/procs.js";

const CONFORMANCE = join(ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const FIXTURES = join(ROOT, "test", "fixtures", "conformance");
const CLIENT = join(FIXTURES, "agentkit-client.mjs");

/** Tokens the auth scenarios' client keeps: a private scratch directory, removed afterwards. */
const tokenDir = mkdtempSync(join(tmpdir(), "agentkit-conformance-"));
afterAll(() => rmSync(tokenDir, { recursive: true, force: true }));

interface Outcome {
  readonly code: number | null;
  readonly passed: number;
  readonly total: number;
  readonly failed: number;
  readonly warnings: number;
  readonly output: string;
}

/** Run one scenario through the suite; kill its process group after `ms`. */
async function scenario(name: string, ms = 60_000): Promise<Outcome> {
  const args = [
    "--import",
    join(FIXTURES, "register.mjs"),
    "--import",
    join(FIXTURES, "loopback.mjs"),
    CONFORMANCE,
    "client",
    "--command",
    `${process.execPath} ${CLIENT}`,
    "--scenario",
    name,
  ];
  const run = await runNode(args, { cwd: ROOT, ms, env: { ...process.env, AGENTKIT_TOKEN_DIR: join(tokenDir, name.replace(/\W/g, "_")) } });
  const output = run.stdout + run.stderr;
  const m = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(output);
  const [passed, total, failed, warnings] = m ? m.slice(1).map(Number) : [0, 0, -1, 0];
  return { code: run.code, passed: passed!, total: total!, failed: failed!, warnings: warnings!, output };
}

async function expectPassed(name: string): Promise<void> {
  const r = await scenario(name);
  expect(r.failed, r.output).toBe(0);
  expect(r.total, r.output).toBeGreaterThan(0);
  expect(r.passed, r.output).toBe(r.total);
  expect(r.code, r.output).toBe(0);
}

const CORE = ["initialize", "tools_call", "elicitation-sep1034-client-defaults"];

describe.concurrent("conformance 0.1.16 client scenarios (core)", () => {
  for (const name of CORE) {
    it(`passes ${name}`, () => expectPassed(name), 90_000);
  }
});

/** Every auth scenario of 0.1.16, each through a shipped provider: 19 through oauthProvider, 2 through clientCredentials, 1 through crossAppAccess. */
const AUTH = [
  "metadata-default",
  "metadata-var1",
  "metadata-var2",
  "metadata-var3",
  "basic-cimd",
  "scope-from-www-authenticate",
  "scope-from-scopes-supported",
  "scope-omitted-when-undefined",
  "scope-step-up",
  "scope-retry-limit",
  "token-endpoint-auth-basic",
  "token-endpoint-auth-post",
  "token-endpoint-auth-none",
  "pre-registration",
  "2025-03-26-oauth-metadata-backcompat",
  "2025-03-26-oauth-endpoint-fallback",
  "resource-mismatch",
  "offline-access-scope",
  "offline-access-not-supported",
  "client-credentials-jwt",
  "client-credentials-basic",
  "cross-app-access-complete-flow",
];

describe.concurrent("conformance 0.1.16 client scenarios (auth)", () => {
  for (const name of AUTH) {
    it(`passes auth/${name}`, () => expectPassed(`auth/${name}`), 90_000);
  }
});

it("runs every client scenario the suite lists (26 at 0.1.16), none left out", async () => {
  const run = await runNode(["--import", join(FIXTURES, "register.mjs"), CONFORMANCE, "list", "--client"], { cwd: ROOT, ms: 60_000 });
  const listed = [...run.stdout.matchAll(/^ {2}- (\S+)/gm)].map((m) => m[1]);
  expect(listed.sort()).toEqual([...CORE, ...AUTH.map((a) => `auth/${a}`), "sse-retry"].sort());
  expect(listed).toHaveLength(26);
}, 90_000);

// Alone, after the others: it checks reconnection timing, which a loaded machine skews.
describe("conformance 0.1.16 client scenario sse-retry", () => {
  it("passes sse-retry", () => expectPassed("sse-retry"), 90_000);
});
