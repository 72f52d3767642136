/**
 * @module test/mcp-serve/both-eras.test
 * One served URL, both protocol eras, over a real loopback socket: an SDK v2
 * client pinned to 2026-07-28 (`server/discover`, no session, the `_meta`
 * envelope on every request), an SDK v2 client on the 2025 handshake (a
 * session), and the SDK v1 client (2025-11-25, a session). Each lists the
 * same hand-written schema byte for byte, runs the tool in this process, and
 * gets the package's own `ToolArgumentError` text for a bad call.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { tool } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { META_KEY, serveRegistry, type McpServerSpec } from "../../src/mcp/serve/index.js";
import { v2Client } from "../helpers/v2-client.js";
import { sdkClientFor, ServedSpecs } from "./helpers.js";

const specs = new ServedSpecs();
afterEach(() => specs.stopAll());

/** A hand-written schema with what a translation would lose: an `x-` keyword, `$defs`, a draft-07 `$schema`. */
const SCHEMA = JSON.parse(readFileSync(new URL("../fixtures/schemas/hand-written.json", import.meta.url), "utf8")) as Record<
  string,
  unknown
>;

function servedTool(ran: string[]) {
  return tool(
    { name: "run_check", description: "Run the named check.", sideEffecting: true, caps: ["egress"], input: SCHEMA },
    ({ name }: { name: string }) => {
      ran.push(name);
      return `${name}: ok in ${process.pid}`;
    },
  );
}

async function served(ran: string[]): Promise<McpServerSpec> {
  const spec = await serveRegistry([servedTool(ran)], { name: "engine", ctx: makeTestCtx() });
  specs.track(spec);
  await spec.start();
  return spec;
}

/** An SDK v2 client on `spec`: `version` pinned, or left out for the SDK's default (the 2025 handshake on this server). */
const clientOn = (spec: McpServerSpec, version?: "2026-07-28") => v2Client(spec.url!, { headers: spec.authHeaders, version });

describe("one served URL, both eras", () => {
  it("an SDK v2 client pinned to 2026-07-28: discover, no session, the envelope on each request; schema bytes, _meta and the argument check as in 2025", async () => {
    const ran: string[] = [];
    const spec = await served(ran);
    await using client = await clientOn(spec, "2026-07-28");
    const { http: transport, sent } = client;
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    const [listed] = (await client.listTools()).tools;
    expect(JSON.stringify(listed!.inputSchema)).toBe(JSON.stringify(SCHEMA));
    expect(listed!._meta![META_KEY]).toEqual({ side_effecting: true, requires_approval: false, caps: ["egress"] });
    expect(listed!.annotations).toMatchObject({ readOnlyHint: false });
    expect((await client.callTool({ name: "run_check", arguments: { name: "lint" } })).content).toEqual([
      { type: "text", text: `lint: ok in ${process.pid}` },
    ]);
    const bad = await client.callTool({ name: "run_check", arguments: { name: 42, extra: true } });
    expect(bad.isError).toBe(true);
    expect((bad.content as Array<{ text: string }>)[0]!.text).toMatch(
      /^tool 'run_check' call rejected: unexpected argument\(s\) \['extra'\]/,
    );
    expect(ran).toEqual(["lint"]);
    expect(transport.sessionId).toBeUndefined();
    expect(sent.map((s) => s.method)).toEqual(["server/discover", "tools/list", "tools/call", "tools/call"]);
    expect(sent.every((s) => s.protocolHeader === "2026-07-28" && s.envelopeVersion === "2026-07-28" && s.session === null)).toBe(true);
  });

  it("an SDK v2 client on the 2025 handshake and the SDK v1 client: initialize, a session, 2025-11-25, on the same URL at the same time as a 2026 client", async () => {
    const ran: string[] = [];
    const spec = await served(ran);
    await using modern = await clientOn(spec, "2026-07-28");
    await using legacy = await clientOn(spec);
    await using v1 = await sdkClientFor(spec.url!, { ...spec.authHeaders });
    expect(legacy.getNegotiatedProtocolVersion()).toBe("2025-11-25");
    expect(legacy.http.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(legacy.sent[0]).toMatchObject({ method: "initialize", session: null });
    expect(legacy.sent.slice(1).every((s) => s.session === legacy.http.sessionId)).toBe(true);
    expect(v1.getServerVersion()?.name).toBe("engine");
    const v1Transport = (v1 as unknown as { transport: { protocolVersion?: string; sessionId?: string } }).transport;
    expect(v1Transport.protocolVersion).toBe("2025-11-25");
    expect(v1Transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const [l2025] = (await legacy.listTools()).tools;
    const [l2026] = (await modern.listTools()).tools;
    // The v2 client's 2025 codec re-orders keys as it parses (the wire bytes are the catalog's: see serve-registry.test); its 2026 codec does not.
    expect(l2025!.inputSchema).toEqual(SCHEMA);
    expect(JSON.stringify(l2026!.inputSchema)).toBe(JSON.stringify(SCHEMA));
    expect(l2026!._meta![META_KEY]).toEqual(l2025!._meta![META_KEY]);
    expect(l2026!.annotations).toEqual(l2025!.annotations);
    const texts = await Promise.all([
      legacy.callTool({ name: "run_check", arguments: { name: "a" } }),
      modern.callTool({ name: "run_check", arguments: { name: "b" } }),
      v1.callTool({ name: "run_check", arguments: { name: "c" } }),
    ]);
    expect(texts.map((t) => (t.content as Array<{ text: string }>)[0]!.text)).toEqual(
      ["a", "b", "c"].map((n) => `${n}: ok in ${process.pid}`),
    );
    expect(ran.sort()).toEqual(["a", "b", "c"]);
    expect(spec.callsSeen).toBe(3);
  });

  it("a raw server/discover with the 2026-07-28 header and envelope is answered without a session; a 2026 request naming an unserved revision is refused by the modern path, not opened as a session", async () => {
    const spec = await served([]);
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const post = (body: unknown, version: string) =>
      fetch(spec.url!, {
        method: "POST",
        headers: {
          ...spec.authHeaders,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": version,
          "mcp-method": "server/discover",
        },
        body: JSON.stringify(body),
      });
    const res = await post({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta } }, "2026-07-28");
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    const text = await res.text();
    const json = JSON.parse(
      text.startsWith("{")
        ? text
        : text
            .split("\n")
            .find((l) => l.startsWith("data: "))!
            .slice(6),
    ) as { result: { supportedVersions: string[]; _meta: Record<string, { name: string }> } };
    expect(json.result.supportedVersions).toContain("2026-07-28");
    expect(json.result._meta["io.modelcontextprotocol/serverInfo"]!.name).toBe("engine");
    const future = await post(
      {
        jsonrpc: "2.0",
        id: 2,
        method: "server/discover",
        params: { _meta: { ...meta, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
      },
      "2099-01-01",
    );
    expect(future.status).toBe(400);
    expect(((await future.json()) as { error: { code: number; message: string } }).error).toMatchObject({
      code: -32022,
      message: expect.stringContaining("2099-01-01"),
    });
  });

  it("ctx.progress() and ctx.log() on 2026-07-28: progress on the call's stream; logs at or above the request's own _meta log level, none without one", async () => {
    const chatty = tool(
      { name: "chatty", description: "Reports as it goes.", sideEffecting: false, input: { type: "object", properties: {} } },
      (_args: Record<string, never>, ctx) => {
        ctx.progress(1, 2, "half");
        ctx.log("info", "an info line");
        ctx.log("error", "an error line");
        return "done";
      },
    );
    const spec = await serveRegistry([chatty], { name: "engine", ctx: makeTestCtx() });
    specs.track(spec);
    await spec.start();
    const call = async (level?: string): Promise<Array<{ method?: string; params?: Record<string, unknown>; result?: unknown }>> => {
      const _meta: Record<string, unknown> = {
        progressToken: "p1",
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
        ...(level ? { "io.modelcontextprotocol/logLevel": level } : {}),
      };
      const res = await fetch(spec.url!, {
        method: "POST",
        headers: {
          ...spec.authHeaders,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "chatty",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "chatty", arguments: {}, _meta } }),
      });
      const text = await res.text();
      return text.startsWith("{")
        ? [JSON.parse(text)]
        : text
            .split("\n")
            .filter((l) => l.startsWith("data: "))
            .map((l) => JSON.parse(l.slice(6)));
    };
    const warned = await call("warning");
    expect(warned.filter((m) => m.method === "notifications/progress").map((m) => m.params)).toEqual([
      { progressToken: "p1", progress: 1, total: 2, message: "half" },
    ]);
    expect(warned.filter((m) => m.method === "notifications/message").map((m) => m.params)).toEqual([
      { level: "error", logger: "engine", data: "an error line" },
    ]);
    expect(warned.at(-1)!.result).toMatchObject({ content: [{ type: "text", text: "done" }] });
    const silent = await call();
    expect(silent.filter((m) => m.method === "notifications/message")).toEqual([]);
    expect(silent.at(-1)!.result).toMatchObject({ content: [{ type: "text", text: "done" }] });
  });

  it("ctx.elicit() asks the client on both eras: on 2026-07-28 through input_required and the retried call, on a 2025 session by a request mid-call", async () => {
    const asking = tool(
      { name: "ask", description: "Asks a question.", sideEffecting: false, input: { type: "object", properties: {} } },
      async (_args: Record<string, never>, ctx) => {
        try {
          const answer = await ctx.elicit({
            message: "Proceed?",
            requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
          });
          return `answer: ${answer.action}`;
        } catch (err) {
          return `${(err as Error).name}: ${(err as Error).message}`;
        }
      },
    );
    const spec = await serveRegistry([asking], { name: "engine", ctx: makeTestCtx() });
    specs.track(spec);
    await spec.start();
    const decline = () => ({ action: "decline" as const });
    await using modern = await v2Client(spec.url!, { headers: spec.authHeaders, version: "2026-07-28", elicit: decline });
    await using legacy = await v2Client(spec.url!, { headers: spec.authHeaders, elicit: decline });
    const text = async (c: typeof modern) =>
      ((await c.callTool({ name: "ask", arguments: {} })).content as Array<{ text: string }>)[0]!.text;
    expect(await text(legacy)).toBe("answer: decline");
    // Changed on purpose (issue #27): 2026-07-28 now asks through input_required and a retried call, no longer a ClientRequestError.
    expect(await text(modern)).toBe("answer: decline");
  });
});
