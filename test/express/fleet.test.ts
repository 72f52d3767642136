/**
 * @module test/express/fleet.test
 * A hosted fleet, all real: three `agentkit host` processes serving the
 * samples/hosted module with one fleet key and one PostgreSQL call-record
 * store (`--store`), a real nginx on 127.0.0.1
 * round-robining over them, and a real local authorization server minting
 * JWTs. Clients of both eras (SDK v2 pinned to 2026-07-28 and to 2025-11-25),
 * the package's MCPClient (OAuth client_credentials, discovering everything
 * from the 401) and the MCP Inspector CLI list and call through nginx; a
 * question asked on one process is answered on another; a wrong audience, an
 * expired token and a missing scope are each refused with the right status
 * and header.
 */
import { join } from "node:path";
import { v2Client } from "../helpers/v2-client.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientCredentials, MCPClient, StreamableHttpServer } from "../../src/mcp/index.js";
import { ServeProcess, ROOT, requireBuild } from "../agentkit-cli/agentkit-process.js";
import { runNode } from "../helpers/procs.js";
import { freePort, startNginx, type TestNginx } from "../helpers/nginx.js";
import { startAuthServer, type TestAuthServer } from "../helpers/oauth-server.js";
import { startPostgres, type TestPostgres } from "../helpers/postgres.js";
import { migrateInboxStore } from "../../src/askers/index.js";

const MODULE = join(ROOT, "build/samples/hosted/release-tools.module.js");
const INSPECTOR = join(ROOT, "node_modules/@modelcontextprotocol/inspector-cli/build/index.js");
const INSPECTOR_CWD = join(ROOT, "node_modules/@modelcontextprotocol/inspector-cli/build");
const FLEET_KEY = "a-fleet-key-shared-by-three-processes-0123456789";
const OPS = { id: "ops-bot", secret: "ops-secret-value", scopes: ["releases:read", "releases:write"] };
const READER = { id: "reader-bot", secret: "reader-secret-value", scopes: ["releases:read"] };

let as: TestAuthServer;
let pg: TestPostgres;
let nginx: TestNginx;
let hosts: ServeProcess[] = [];
let resource: string;

beforeAll(async () => {
  requireBuild();
  [as, pg] = await Promise.all([startAuthServer({ clients: [OPS, READER] }), startPostgres()]);
  // The fleet's call records: a question asked on one process is answered on another through them.
  await migrateInboxStore({ connectionString: pg.connectionString, roles: false });
  const [nginxPort, ...ports] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  resource = `http://127.0.0.1:${nginxPort}/mcp`;
  hosts = await Promise.all(
    ports.map((port) =>
      ServeProcess.start(
        [MODULE, "--port", String(port), "--resource", resource, "--issuer", as.issuer, "--store", pg.connectionString, "--json"],
        { command: "host", ready: /"event":"listening"/, env: { AGENTKIT_FLEET_KEY: FLEET_KEY } },
      ),
    ),
  );
  nginx = await startNginx(ports, { port: nginxPort! });
}, 60_000);

afterAll(async () => {
  await nginx?.close();
  await Promise.all(hosts.map((h) => h.kill()));
  await as?.close();
  pg?.stop();
});

/** Which host a pid is, for messages. */
const pids = (): number[] => hosts.map((h) => h.child.pid!);

/** Answers each question with `{ confirm }`. */
const confirming = (confirm: boolean) => () => ({ action: "accept" as const, content: { confirm } });

const text = (r: { content?: unknown }): string => (r.content as Array<{ text: string }>)[0]!.text;

/** A raw tools/call through nginx with `token` (or none): status, WWW-Authenticate, body. */
async function rawCall(token: string | undefined, name: string): Promise<{ status: number; challenge: string | null; body: string }> {
  const res = await fetch(resource, {
    method: "POST",
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: {} } }),
  });
  return { status: res.status, challenge: res.headers.get("www-authenticate"), body: await res.text() };
}

describe("a fleet of three agentkit host processes behind nginx", () => {
  it("an SDK v2 client on 2026-07-28 lists and calls through nginx, and the calls are spread over all three processes", async () => {
    const client = await v2Client(resource, {
      token: await as.mint({ audience: resource, clientId: OPS.id, scopes: OPS.scopes }),
      version: "2026-07-28",
    });
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      const names = (await client.listTools()).tools.map((t) => t.name).sort();
      // read_result: result budgets are on by default on agentkit host too.
      expect(names).toEqual(["list_releases", "read_result", "ship_release", "who_am_i"]);
      const seen = new Set<number>();
      for (let i = 0; i < 6; i++) {
        const who = JSON.parse(text(await client.callTool({ name: "who_am_i", arguments: {} }))) as {
          clientId: string;
          scopes: string[];
          pid: number;
        };
        expect(who).toMatchObject({ clientId: OPS.id, scopes: OPS.scopes });
        seen.add(who.pid);
      }
      expect([...seen].sort()).toEqual(pids().sort());
      expect(nginx.accessLog().length).toBeGreaterThanOrEqual(7);
    } finally {
      await client.close();
    }
  });

  it("an SDK v2 client on 2025-11-25 (stateless) lists and calls; a question from a tool is a clear tool error there", async () => {
    const client = await v2Client(resource, {
      token: await as.mint({ audience: resource, clientId: OPS.id, scopes: OPS.scopes }),
      version: "legacy",
      elicit: confirming(true),
    });
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe("2025-11-25");
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
        "list_releases",
        "read_result",
        "ship_release",
        "who_am_i",
      ]);
      expect(JSON.parse(text(await client.callTool({ name: "list_releases", arguments: {} })))).toEqual(["1.4.0", "1.4.1"]);
      const asked = await client.callTool({ name: "ship_release", arguments: { version: "0.0.1-legacy" } });
      expect(asked.isError).toBe(true);
      expect(text(asked)).toMatch(/2026-07-28/);
    } finally {
      await client.close();
    }
  });

  it("a question asked on one process is answered on another: the retry carries the fleet-signed state naming the call's record in the shared store", async () => {
    const version = `2.0.${Date.now()}`;
    const client = await v2Client(resource, {
      token: await as.mint({ audience: resource, clientId: OPS.id, scopes: OPS.scopes }),
      version: "2026-07-28",
      elicit: confirming(true),
    });
    let result;
    try {
      result = JSON.parse(text(await client.callTool({ name: "ship_release", arguments: { version } }))) as {
        shipped: boolean;
        version: string;
        confirmedOn: number;
      };
    } finally {
      await client.close();
    }
    expect(result).toMatchObject({ shipped: true, version });
    const askedOn = hosts.filter((h) => h.stderr.includes(`asks to confirm ${version}`)).map((h) => h.child.pid!);
    const answeredOn = hosts.filter((h) => h.stderr.includes(`got the answer for ${version}`)).map((h) => h.child.pid!);
    expect(answeredOn).toEqual([result.confirmedOn]);
    // The first round ran on a process that never saw the answer: the question and its answer met on two processes.
    const onlyAsked = askedOn.filter((p) => !answeredOn.includes(p));
    expect(onlyAsked.length, `asked on ${askedOn.join(",")}, answered on ${answeredOn.join(",")}`).toBeGreaterThanOrEqual(1);
    expect(onlyAsked).not.toContain(result.confirmedOn);
  });

  it("the package's MCPClient discovers the authorization server from the 401, gets a token by client_credentials, and lists and calls", async () => {
    const issuedBefore = as.issued;
    await using client = await MCPClient.start(
      new StreamableHttpServer({ url: resource, auth: clientCredentials({ clientId: OPS.id, clientSecret: OPS.secret }) }),
    );
    const tools = (await client.listTools()).map((t) => t.name).sort();
    expect(tools).toEqual(["list_releases", "read_result", "ship_release", "who_am_i"]);
    const who = JSON.parse(text(await client.callTool("who_am_i", {}))) as { clientId: string; pid: number };
    expect(who.clientId).toBe(OPS.id);
    expect(pids()).toContain(who.pid);
    expect(as.issued).toBeGreaterThan(issuedBefore);
  });

  it("the MCP Inspector CLI lists and calls through nginx", async () => {
    const header = `Authorization: Bearer ${await as.mint({ audience: resource, clientId: READER.id, scopes: READER.scopes })}`;
    const list = await runNode([INSPECTOR, resource, "--method", "tools/list", "--header", header], { cwd: INSPECTOR_CWD, ms: 60_000 });
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name).sort()).toEqual([
      "list_releases",
      "read_result",
      "who_am_i",
    ]);
    const call = await runNode([INSPECTOR, resource, "--method", "tools/call", "--tool-name", "list_releases", "--header", header], {
      cwd: INSPECTOR_CWD,
      ms: 60_000,
    });
    expect(call.code, call.stderr).toBe(0);
    expect(JSON.parse(call.stdout)).toMatchObject({ content: [{ type: "text", text: JSON.stringify(["1.4.0", "1.4.1"]) }] });
  });

  it("refuses through nginx: no token, wrong audience and expired with 401 invalid_token naming the metadata; a missing scope with 403 insufficient_scope", async () => {
    const metadata = `resource_metadata="${resource}/.well-known/oauth-protected-resource"`;
    const none = await rawCall(undefined, "who_am_i");
    expect(none.status).toBe(401);
    expect(none.challenge).toContain(metadata);
    const wrongAudience = await rawCall(
      await as.mint({ audience: "http://127.0.0.1:1/mcp", clientId: OPS.id, scopes: OPS.scopes }),
      "who_am_i",
    );
    expect(wrongAudience.status).toBe(401);
    expect(wrongAudience.challenge).toMatch(/^Bearer .*error="invalid_token"/);
    expect(wrongAudience.challenge).toContain(metadata);
    const expired = await rawCall(
      await as.mint({ audience: resource, clientId: OPS.id, scopes: OPS.scopes, expiresInSec: -120 }),
      "who_am_i",
    );
    expect(expired.status).toBe(401);
    expect(expired.challenge).toMatch(/error="invalid_token"/);
    const reader = await as.mint({ audience: resource, clientId: READER.id, scopes: READER.scopes });
    const missingScope = await rawCall(reader, "ship_release");
    expect(missingScope.status).toBe(403);
    expect(missingScope.challenge).toMatch(/^Bearer .*error="insufficient_scope".*scope="releases:write"/);
    expect(missingScope.challenge).toContain(metadata);
    // The same token is good for what its scopes cover (so the 403 is about the scope, not the token).
    expect((await rawCall(reader, "list_releases")).status).toBe(200);
    // The metadata document names the authorization server, through nginx.
    const doc = (await (await fetch(`${resource}/.well-known/oauth-protected-resource`)).json()) as Record<string, unknown>;
    expect(doc).toMatchObject({ resource, authorization_servers: [as.issuer] });
  });
});
