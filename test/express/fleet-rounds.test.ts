/**
 * @module test/express/fleet-rounds.test
 * Each question of a hosted call is answered once across a fleet, all real:
 * three `agentkit host` processes with one fleet key and one PostgreSQL
 * call-record store (`--store`), a real nginx round-robining over them, a
 * real local authorization server. An answered `requestState` replayed to
 * each of the three processes (and through nginx) is refused with -32602
 * every time, and the code after the question ran exactly once; a guarded
 * call with two questions asks its approver exactly once; a process on
 * another store refuses the retry, naming the fix.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { v2Client } from "../helpers/v2-client.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateInboxStore } from "../../src/askers/index.js";
import { FIXTURES, ServeProcess, requireBuild } from "../agentkit-cli/agentkit-process.js";
import { freePort, startNginx, type TestNginx } from "../helpers/nginx.js";
import { startAuthServer, type TestAuthServer } from "../helpers/oauth-server.js";
import { startPostgres, type TestPostgres } from "../helpers/postgres.js";
import { messages, modernCall, post } from "./kit.js";

const MODULE = join(FIXTURES, "hosted-rounds-module.mjs");
const FLEET_KEY = "a-fleet-key-shared-by-three-processes-0123456789";
const OPS = { id: "ops-bot", secret: "ops-secret-value", scopes: [] as string[] };

let as: TestAuthServer;
let pg: TestPostgres;
let nginx: TestNginx;
let hosts: ServeProcess[] = [];
let resource: string;
let dir: string;
let notes: string;

/** `agentkit host` of the fixture on `port` for `resource`, with `extra` flags. */
function host(port: number, extra: string[]): Promise<ServeProcess> {
  return ServeProcess.start([MODULE, "--port", String(port), "--resource", resource, "--issuer", as.issuer, "--json", ...extra], {
    command: "host",
    ready: /"event":"listening"/,
    env: { AGENTKIT_FLEET_KEY: FLEET_KEY, AGENTKIT_TEST_ROUNDS: notes },
  });
}

beforeAll(async () => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), "agentkit-fleet-rounds-"));
  notes = join(dir, "notes.txt");
  writeFileSync(notes, "");
  [as, pg] = await Promise.all([startAuthServer({ clients: [OPS] }), startPostgres()]);
  await migrateInboxStore({ connectionString: pg.connectionString, roles: false });
  const [nginxPort, ...ports] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  resource = `http://127.0.0.1:${nginxPort}/mcp`;
  hosts = await Promise.all(ports.map((port) => host(port, ["--store", pg.connectionString])));
  nginx = await startNginx(ports, { port: nginxPort! });
}, 90_000);

afterAll(async () => {
  await nginx?.close();
  await Promise.all(hosts.map((h) => h.kill()));
  await as?.close();
  pg?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A host's own URL, from its --json health line. */
const urlOf = (h: ServeProcess): string => (JSON.parse(h.stdout.split("\n")[0]!) as { url: string }).url;

/** The lines of the shared notes file that start with `prefix`. */
const noted = (prefix: string): string[] =>
  readFileSync(notes, "utf8")
    .split("\n")
    .filter((l) => l.startsWith(prefix));

interface Wire {
  result?: { resultType?: string; requestState?: string; inputRequests?: Record<string, unknown>; content?: Array<{ text: string }> };
  error?: { code: number; message: string };
}

/** One raw 2026-07-28 `tools/call` to `url` (a host's own, or nginx's) with `token`; the final JSON-RPC message. */
async function call(
  url: string,
  token: string,
  name: string,
  args: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<Wire> {
  const c = modernCall(name, args, extra);
  return (await messages(await post(url, c.body, { ...c.headers, authorization: `Bearer ${token}` }))).at(-1) as Wire;
}

/** The retry params answering the open question of `asked`. */
function retryOf(asked: Wire): Record<string, unknown> {
  const [key] = Object.keys(asked.result!.inputRequests!);
  return { requestState: asked.result!.requestState, inputResponses: { [key!]: { action: "accept", content: { answer: "yes" } } } };
}

describe("a fleet of three agentkit host on one PostgreSQL store, behind nginx: each question is answered once", () => {
  it("an answered state replayed to each of the three processes (and through nginx) is refused with -32602; the code after the question ran once", async () => {
    const token = await as.mint({ audience: resource, clientId: OPS.id, scopes: OPS.scopes });
    const version = `3.0.${Date.now()}`;
    const [first, second, third] = hosts.map(urlOf);
    const asked = await call(first!, token, "confirm_release", { version });
    expect(asked.result?.resultType).toBe("input_required");
    const retry = retryOf(asked);
    // Asked on the first process, answered on the second: the record is in the shared store.
    expect((await call(second!, token, "confirm_release", { version }, retry)).result?.content?.[0]?.text).toBe(
      `released ${version}: accept`,
    );
    for (const url of [first!, second!, third!, resource, resource, resource]) {
      const replayed = await call(url, token, "confirm_release", { version }, retry);
      expect(replayed.error, `replayed to ${url}`).toMatchObject({
        code: -32602,
        message: expect.stringContaining("round 1 of this call was already answered"),
      });
    }
    expect(noted(`after ${version} `)).toEqual([`after ${version} ${hosts[1]!.child.pid}`]);
  });

  it("a guarded call with two questions, through nginx: three requests, the approver asked exactly once", async () => {
    const version = `4.0.${Date.now()}`;
    const client = await v2Client(resource, {
      token: await as.mint({ audience: resource, clientId: OPS.id, scopes: OPS.scopes }),
      version: "2026-07-28",
      elicit: () => ({ action: "accept", content: { answer: "eu" } }),
    });
    try {
      const result = await client.callTool({ name: "guarded_release", arguments: { version } });
      expect((result.content as Array<{ text: string }>)[0]!.text).toBe(`released ${version} to eu (eu)`);
    } finally {
      await client.close();
    }
    expect(client.sent.filter((s) => s.method === "tools/call")).toHaveLength(3);
    expect(noted("approver ").filter((l) => l.includes(version))).toHaveLength(1);
    expect(noted(`after ${version} `)).toHaveLength(1);
  });

  it("a process on another store (none shared) refuses the retry with -32602, naming the fix", async () => {
    const lone = await host(await freePort(), []);
    try {
      const token = await as.mint({ audience: resource, clientId: OPS.id, scopes: OPS.scopes });
      const version = `5.0.${Date.now()}`;
      const asked = await call(urlOf(hosts[0]!), token, "confirm_release", { version });
      const refused = await call(urlOf(lone), token, "confirm_release", { version }, retryOf(asked));
      expect(refused.error).toMatchObject({
        code: -32602,
        message: expect.stringContaining("give every process of the fleet the same store, e.g. agentkit host --store postgres://"),
      });
      expect(lone.stderr).toContain("no --store");
      expect(noted(`after ${version} `)).toEqual([]);
    } finally {
      await lone.kill();
    }
  });
});
