/**
 * @module test/mcp-serve/stdio-eras.test
 * The stdio server on both protocol eras, as `both-eras.test` shows them on
 * one URL: a real child process (`serveRegistryStdio`) driven by an SDK v2
 * client pinned to 2026-07-28 (`server/discover`, the `_meta` envelope on
 * each request), by `auto` (which settles on 2026-07-28), by the 2025
 * handshake and by the SDK v1 client (2025-11-25), by the package's own
 * `MCPClient`, and by raw JSON-RPC lines. Each lists the same hand-written
 * schema, runs the tool in the child, gets the package's own
 * `ToolArgumentError` text, can be asked (`ctx.elicit()`), and ends the
 * child by closing its stdin.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFileSync } from "node:fs";
import { once } from "node:events";
import { PassThrough, type Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { Client as V2Client } from "@modelcontextprotocol/client";
import { StdioClientTransport as V2Stdio } from "@modelcontextprotocol/client/stdio";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1Stdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { tool } from "../../src/index.js";
import { MCPClient, StdioServer } from "../../src/mcp/index.js";
import { META_KEY } from "../../src/mcp/serve/index.js";
import { openStdioServing } from "../../src/mcp/serve/serve-stdio.js";
import { makeTestCtx } from "../../src/testing/index.js";

const CHILD = fileURLToPath(new URL("../fixtures/serve/stdio-eras-child.mjs", import.meta.url));
/** What the child writes to stderr once `serveRegistryStdio` resolved (its stdin closed). */
const SERVED_TO_THE_END = "served until stdin closed";

/** The fixture's hand-written schema, as the child serves it. */
const SCHEMA = JSON.parse(readFileSync(new URL("../fixtures/schemas/hand-written.json", import.meta.url), "utf8")) as Record<
  string,
  unknown
>;

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** Everything a stream writes, as text so far, and a promise of `needle` appearing in it. */
function collected(stream: Readable): { text: () => string; seen: (needle: string) => Promise<void> } {
  let text = "";
  const waiters: Array<() => void> = [];
  stream.on("data", (chunk: Buffer) => {
    text += chunk.toString();
    for (const w of waiters.splice(0)) w();
  });
  const seen = async (needle: string): Promise<void> => {
    while (!text.includes(needle)) await new Promise<void>((r) => waiters.push(r));
  };
  return { text: () => text, seen };
}

/** The clients a test opened, closed (ours: stopped) after it (a closed one is closed again harmlessly). */
const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const c of opened.splice(0)) await c.close();
});

/** An SDK v2 client on a fresh child; `mode` as the SDK's `versionNegotiation.mode`; stderr piped. */
async function v2Child(
  mode: "auto" | "legacy" | { pin: string },
  answer?: "accept" | "decline",
): Promise<{ client: V2Client; stderr: ReturnType<typeof collected> }> {
  const transport = new V2Stdio({ command: process.execPath, args: [CHILD], stderr: "pipe" });
  const stderr = collected(transport.stderr as Readable);
  const client = new V2Client(
    { name: "stdio-era-test", version: "1" },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode } },
  );
  if (answer) client.setRequestHandler("elicitation/create", () => ({ action: answer }));
  opened.push(client);
  await client.connect(transport);
  return { client, stderr };
}

/** The text of a call's first content block. */
function firstText(result: object): string {
  return ((result as { content?: unknown }).content as Array<{ text: string }>)[0]!.text;
}

/** A child spoken to in raw JSON-RPC lines. */
class RawChild {
  readonly proc: ChildProcessWithoutNullStreams = spawn(process.execPath, [CHILD], { stdio: ["pipe", "pipe", "pipe"] });
  readonly stdout = collected(this.proc.stdout);
  readonly stderr = collected(this.proc.stderr);

  send(message: unknown): void {
    this.proc.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** Every message received so far. */
  messages(): Array<Record<string, unknown>> {
    return this.stdout
      .text()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  /** The messages up to and including the response to request `id`. */
  async until(id: number): Promise<Array<Record<string, unknown>>> {
    await this.stdout.seen(`"id":${id}`);
    const all = this.messages();
    return all.slice(0, all.findIndex((m) => m.id === id && !("method" in m)) + 1);
  }

  async close(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    this.proc.stdin.end();
    await once(this.proc, "exit");
  }
}

describe("serveRegistryStdio serves both eras", () => {
  it("an SDK v2 client pinned to 2026-07-28: discover, the schema bytes and _meta, the call and the argument check; closing stdin ends the child", async () => {
    const { client, stderr } = await v2Child({ pin: "2026-07-28" });
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    expect(client.getServerVersion()?.name).toBe("engine");
    const listed = (await client.listTools()).tools.find((t) => t.name === "run_check")!;
    expect(JSON.stringify(listed.inputSchema)).toBe(JSON.stringify(SCHEMA));
    expect(listed._meta![META_KEY]).toEqual({ side_effecting: true, requires_approval: false, caps: ["egress"] });
    expect(listed.annotations).toMatchObject({ readOnlyHint: false });
    const ok = await client.callTool({ name: "run_check", arguments: { name: "lint" } });
    expect(firstText(ok)).toMatch(/^lint: ok in \d+$/);
    const bad = await client.callTool({ name: "run_check", arguments: { name: 42, extra: true } });
    expect(bad.isError).toBe(true);
    expect(firstText(bad)).toMatch(/^tool 'run_check' call rejected: unexpected argument\(s\) \['extra'\]/);
    await client.close();
    await stderr.seen(SERVED_TO_THE_END);
  });

  it("an SDK v2 client on auto settles on 2026-07-28, and ctx.caller is the stdio client", async () => {
    const auto = await v2Child("auto");
    expect(auto.client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    expect((await auto.client.listTools()).tools.find((t) => t.name === "run_check")!.inputSchema).toEqual(SCHEMA);
    expect(JSON.parse(firstText(await auto.client.callTool({ name: "whoami", arguments: {} })))).toEqual({
      kind: "stdio",
      server: "engine",
      requestId: expect.anything(),
    });
  });

  it("an SDK v2 client on the 2025 handshake gets 2025-11-25, the SDK v1 client too: the same schema, calls and ctx.caller", async () => {
    const legacy = await v2Child("legacy");
    expect(legacy.client.getNegotiatedProtocolVersion()).toBe("2025-11-25");
    const v1Transport = new V1Stdio({ command: process.execPath, args: [CHILD], stderr: "pipe" });
    const v1Stderr = collected(v1Transport.stderr as Readable);
    let v1Version: string | undefined;
    // The v1 client hands the negotiated version to its transport, when the transport takes one.
    Object.assign(v1Transport, { setProtocolVersion: (version: string) => void (v1Version = version) });
    const v1 = new V1Client({ name: "stdio-era-test", version: "1" });
    opened.push(v1);
    await v1.connect(v1Transport);
    expect(v1Version).toBe("2025-11-25");
    expect(v1.getServerVersion()?.name).toBe("engine");
    const schemas = await Promise.all([legacy.client.listTools(), v1.listTools()]);
    for (const { tools } of schemas) expect(tools.find((t) => t.name === "run_check")!.inputSchema).toEqual(SCHEMA);
    const texts = await Promise.all([
      legacy.client.callTool({ name: "run_check", arguments: { name: "b" } }),
      v1.callTool({ name: "run_check", arguments: { name: "c" } }),
    ]);
    expect(texts.map((t) => firstText(t).split(" in ")[0])).toEqual(["b: ok", "c: ok"]);
    expect(JSON.parse(firstText(await legacy.client.callTool({ name: "whoami", arguments: {} })))).toEqual({
      kind: "stdio",
      server: "engine",
      requestId: expect.anything(),
    });
    await legacy.client.close();
    await legacy.stderr.seen(SERVED_TO_THE_END);
    await v1.close();
    await v1Stderr.seen(SERVED_TO_THE_END);
  });

  it("the package's MCPClient opens a stdio child on 2026-07-28 when pinned, and on auto", async () => {
    for (const protocol of ["2026-07-28", "auto"] as const) {
      const client = await MCPClient.start(new StdioServer({ command: process.execPath, args: [CHILD], protocol }));
      opened.push({ close: () => client.stop() });
      expect(client.protocolVersion).toBe("2026-07-28");
      expect(firstText(await client.callTool("run_check", { name: protocol }))).toMatch(new RegExp(`^${protocol}: ok in \\d+$`));
    }
  });

  it("ctx.elicit() asks the client on both eras: on 2026-07-28 through input_required and the retried call, on 2025 by a request mid-call", async () => {
    const modern = await v2Child({ pin: "2026-07-28" }, "decline");
    const legacy = await v2Child("legacy", "accept");
    expect(firstText(await modern.client.callTool({ name: "ask", arguments: {} }))).toBe("answer: decline");
    expect(firstText(await legacy.client.callTool({ name: "ask", arguments: {} }))).toBe("answer: accept");
  });

  it("raw lines: server/discover with the envelope is answered; a request naming an unserved revision is refused; progress on the call, logs at the request's own level", async () => {
    const child = new RawChild();
    opened.push(child);
    child.send({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: ENVELOPE } });
    const [discovered] = await child.until(1);
    const result = discovered!.result as { supportedVersions: string[]; _meta: Record<string, { name: string }> };
    expect(result.supportedVersions).toContain("2026-07-28");
    expect(result._meta["io.modelcontextprotocol/serverInfo"]!.name).toBe("engine");
    child.send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/list",
      params: { _meta: { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
    });
    expect((await child.until(2)).at(-1)!.error).toMatchObject({ code: -32022, message: expect.stringContaining("2099-01-01") });
    const _meta = { ...ENVELOPE, progressToken: "p1", "io.modelcontextprotocol/logLevel": "warning" };
    child.send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "chatty", arguments: {}, _meta } });
    const answered = (await child.until(3)).filter((m) => m.id === 3 || (m.method as string | undefined)?.startsWith("notifications/"));
    expect(answered.filter((m) => m.method === "notifications/progress").map((m) => m.params)).toEqual([
      { progressToken: "p1", progress: 1, total: 2, message: "half" },
    ]);
    expect(answered.filter((m) => m.method === "notifications/message").map((m) => m.params)).toEqual([
      { level: "error", logger: "engine", data: "an error line" },
    ]);
    expect(answered.at(-1)!.result).toMatchObject({ content: [{ type: "text", text: "done" }] });
    await child.close();
    expect(child.stderr.text()).toContain(SERVED_TO_THE_END);
  });

  it("openStdioServing on pipes: `closed` resolves when stdin ends, in the 2026-07-28 era", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const echo = tool({ name: "echo", description: "Echo.", sideEffecting: false }, () => "echoed");
    const serving = await openStdioServing([echo], { name: "piped", ctx: makeTestCtx(), stdin, stdout });
    const out = collected(stdout);
    stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "server/discover", params: { _meta: ENVELOPE } })}\n`);
    await out.seen('"id":0');
    expect(JSON.parse(out.text().trim().split("\n")[0]!)).toMatchObject({
      id: 0,
      result: { supportedVersions: expect.arrayContaining(["2026-07-28"]) },
    });
    stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: {}, _meta: ENVELOPE } })}\n`,
    );
    await out.seen('"id":1');
    expect(JSON.parse(out.text().trim().split("\n").at(-1)!)).toMatchObject({
      id: 1,
      result: { content: [{ type: "text", text: "echoed" }] },
    });
    stdin.end();
    await serving.closed;
  });
});
