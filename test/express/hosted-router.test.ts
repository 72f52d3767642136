/**
 * @module test/express/hosted-router.test
 * `mcpRouter` on a real express app on 127.0.0.1: SDK v2 clients pinned to
 * each era and the package's `MCPClient` list and call through it with a
 * bearer token; the caller reaches the tool as `ctx.caller`; scopes per tool
 * hide a tool from `tools/list` and refuse its call with 403
 * `insufficient_scope`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { tool } from "../../src/index.js";
import { hostedCaller } from "../../src/express/index.js";
import { MCPClient, StreamableHttpServer } from "../../src/mcp/index.js";
import { closeAll, grant, hosted, messages, modernCall, post, sayYes } from "./kit.js";
import { v2Client } from "../helpers/v2-client.js";

afterEach(closeAll);

const whoami = tool({ name: "whoami", description: "Who is calling.", sideEffecting: false }, (_input, ctx) =>
  JSON.stringify({ ...hostedCaller(ctx), same: hostedCaller(ctx) === ctx.caller }),
);
const deploy = tool(
  {
    name: "deploy",
    description: "Deploy to a target.",
    scopes: ["deploy:write"],
    input: { type: "object", properties: { target: { type: "string" } }, required: ["target"], additionalProperties: false },
  },
  ({ target }: { target: string }) => `deployed to ${target}`,
);
const TOOLS = [whoami, deploy];

const textOf = (r: unknown): string => (r as { content: Array<{ text?: string }> }).content[0]?.text ?? "";

describe("mcpRouter: both eras, stateless, with the caller's token", () => {
  it("an SDK v2 client pinned to 2026-07-28 lists and calls; the tool reads the token's caller from ctx.caller", async () => {
    const h = await hosted(TOOLS);
    await using client = await v2Client(h.url, {
      token: grant(h, "t-full", ["deploy:write", "read"]),
      version: "2026-07-28",
      elicit: sayYes,
    });
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["deploy", "read_result", "whoami"]);
    expect(textOf(await client.callTool({ name: "deploy", arguments: { target: "prod" } }))).toBe("deployed to prod");
    const caller = JSON.parse(textOf(await client.callTool({ name: "whoami", arguments: {} })));
    expect(caller).toMatchObject({
      kind: "hosted",
      requestId: expect.anything(),
      clientId: "client-a",
      subject: "alice",
      scopes: ["deploy:write", "read"],
      resource: h.url,
      same: true,
    });
    expect(typeof caller.server).toBe("string");
  });

  it("an SDK v2 client on the 2025 handshake is served without a session: each POST stands alone", async () => {
    const h = await hosted(TOOLS);
    const token = grant(h, "t-2025", ["deploy:write"]);
    await using client = await v2Client(h.url, { token, elicit: sayYes });
    expect(client.sent[0]?.method).toBe("initialize");
    expect(client.getNegotiatedProtocolVersion()).toMatch(/^2025-/);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["deploy", "read_result", "whoami"]);
    expect(textOf(await client.callTool({ name: "deploy", arguments: { target: "staging" } }))).toBe("deployed to staging");
    // No session was handed out, and a session operation is refused.
    const del = await fetch(h.url, { method: "DELETE", headers: { authorization: `Bearer ${token}` } });
    expect(del.status).toBe(405);
  });

  it("the package's MCPClient lists and calls through the router with its headers", async () => {
    const h = await hosted(TOOLS);
    const client = await MCPClient.start(
      new StreamableHttpServer({ url: h.url, headers: { authorization: `Bearer ${grant(h, "t-mcp", [])}` } }),
    );
    try {
      expect((await client.listTools()).map((t) => t.name)).toEqual(["whoami", "read_result"]);
      expect(JSON.parse(textOf(await client.callTool("whoami", {})))).toMatchObject({ clientId: "client-a", scopes: [] });
    } finally {
      await client.stop();
    }
  });
});

describe("mcpRouter: scopes per tool", () => {
  it("a tool the token's scopes do not cover is not listed, and calling it is 403 insufficient_scope naming the scope and the metadata", async () => {
    const h = await hosted(TOOLS);
    const token = grant(h, "t-read", ["read"]);
    await using client = await v2Client(h.url, { token, version: "2026-07-28", elicit: sayYes });
    // Not deploy; read_result (served by default, the caller's own results only) needs no scope.
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["whoami", "read_result"]);
    const { body, headers } = modernCall("deploy", { target: "prod" });
    const res = await post(h.url, body, { ...headers, authorization: `Bearer ${token}` });
    expect(res.status).toBe(403);
    const challenge = res.headers.get("www-authenticate") ?? "";
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="deploy:write"');
    expect(challenge).toContain(`resource_metadata="${h.url}/.well-known/oauth-protected-resource"`);
    expect(await res.json()).toMatchObject({
      error: "insufficient_scope",
      error_description: expect.stringContaining("tool 'deploy' needs the scope(s) deploy:write"),
    });
  });

  it("the same refusal on the 2025 era (a batch-free legacy POST), and an uncovered call never runs", async () => {
    const ran: string[] = [];
    const guarded = tool({ name: "wipe", description: "Wipe.", scopes: ["admin"] }, () => (ran.push("wipe"), "wiped"));
    const h = await hosted([guarded]);
    const res = await post(
      h.url,
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "wipe", arguments: {} } },
      { authorization: `Bearer ${grant(h, "t-none", ["read"])}`, "mcp-protocol-version": "2025-11-25" },
    );
    expect(res.status).toBe(403);
    expect(ran).toEqual([]);
  });

  it("the protected-resource metadata lists the resource, its authorization servers and the tools' scopes", async () => {
    const h = await hosted(TOOLS);
    const res = await fetch(`${h.url}/.well-known/oauth-protected-resource`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      resource: h.url,
      authorization_servers: ["http://127.0.0.1:9/issuer"],
      scopes_supported: ["deploy:write"],
      bearer_methods_supported: ["header"],
    });
  });
});

describe("mcpRouter: messages", () => {
  it("a raw 2026-07-28 call answers with the tool's result", async () => {
    const h = await hosted(TOOLS);
    const { body, headers } = modernCall("deploy", { target: "qa" });
    const res = await post(h.url, body, { ...headers, authorization: `Bearer ${grant(h, "t-raw", ["deploy:write"])}` });
    expect(res.status).toBe(200);
    expect((await messages(res)).at(-1)).toMatchObject({ result: { content: [{ type: "text", text: "deployed to qa" }] } });
  });

  it.each(["2026-07-28", "2025-11-25"] as const)(
    "a client that leaves mid-call (%s) cancels the call: the tool's context is cancelled",
    async (era) => {
      let started!: () => void;
      const running = new Promise<void>((r) => (started = r));
      let stopped!: (reason: string) => void;
      const cancelled = new Promise<string>((r) => (stopped = r));
      const wait = tool({ name: "wait", description: "Wait until cancelled.", sideEffecting: false }, (_input, ctx) => {
        started();
        return new Promise<string>((resolve) => ctx.onCancel(() => (stopped("cancelled"), resolve("stopped"))));
      });
      const h = await hosted([wait]);
      const token = grant(h, `t-leave-${era}`, []);
      const leave = new AbortController();
      const call =
        era === "2026-07-28"
          ? modernCall("wait")
          : {
              body: { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "wait", arguments: {} } },
              headers: { "mcp-protocol-version": era },
            };
      const answer = post(h.url, call.body, { ...call.headers, authorization: `Bearer ${token}` }, leave.signal).catch(() => "left");
      await running;
      leave.abort();
      await answer; // the answer's head may have come (2025: an SSE stream) or not (2026: one JSON answer): the client leaves either way
      expect(await Promise.race([cancelled, new Promise((r) => setTimeout(() => r("still running after 5 s"), 5000))])).toBe("cancelled");
    },
  );
});
