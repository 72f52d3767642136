/**
 * @module test/mcp-client/newcomer-client.test
 * What a newcomer meets first (issue #26 point 6), against real third-party
 * servers: the adapters check the server's capabilities (server-filesystem
 * declares neither prompts nor resources: empty results, no -32601), the
 * opt-in `trustReadOnlyHint` (server-filesystem annotates its read tools),
 * and `callTool(..., { onProgress })` (server-everything's long-running
 * operation sends progress notifications).
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, ReActCognition, setLogger, type Logger } from "../../src/index.js";
import { MCPClient, StdioServer, mcpPrompts, mcpResources, mcpTools } from "../../src/mcp/index.js";
import type { CallProgress } from "../../src/mcp/client/index.js";
import { FakeLLM, Turn, makeTestCtx } from "../../src/testing/index.js";
import { EVERYTHING, FILESYSTEM, NODE } from "./support.js";

/** Route the package logger, every level, into one array until `restore()`. */
function captureAll(): { lines: string[]; restore: () => void } {
  const lines: string[] = [];
  const at = (level: string) => (m: string) => void lines.push(`${level}: ${m}`);
  const logger: Logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
  const prev = setLogger(logger);
  return { lines, restore: () => void setLogger(prev) };
}

/** An Asker that approves and records the tools it was asked about. */
function recordingAsker(): { asked: string[]; ask: (req: { toolCall?: { name: string } }) => Promise<{ kind: "approve" }> } {
  const asked: string[] = [];
  return { asked, ask: async (req) => (asked.push(req.toolCall?.name ?? "?"), { kind: "approve" }) };
}

describe("server-filesystem (declares tools only)", () => {
  let dir: string;
  let client: MCPClient;
  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "agentkit-newcomer-")));
    writeFileSync(join(dir, "notes.txt"), "remember the milk\n");
    client = await MCPClient.start(new StdioServer({ command: NODE, args: [FILESYSTEM, dir] }));
  });
  afterAll(async () => {
    await client?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("declares neither prompts nor resources (the premise)", () => {
    const caps = client.session.getServerCapabilities();
    expect(caps?.tools).toBeDefined();
    expect(caps?.prompts).toBeUndefined();
    expect(caps?.resources).toBeUndefined();
  });

  it("mcpPrompts() returns {} with one debug line, and no request that would get -32601", async () => {
    const log = captureAll();
    try {
      expect(await mcpPrompts(client)).toEqual({});
    } finally {
      log.restore();
    }
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatch(/^debug: mcpPrompts: stdio server '.*' declares no prompts capability; returning none/);
  });

  it("mcpResources(...).query() returns [] (one debug line for the source, not one per query)", async () => {
    const memory = mcpResources(client, { name: "fs-docs" });
    const log = captureAll();
    try {
      expect(await memory.query("notes", { k: 3 })).toEqual([]);
      expect(await memory.query("milk")).toEqual([]);
    } finally {
      log.restore();
    }
    expect(log.lines).toEqual([
      expect.stringMatching(/^debug: mcpResources 'fs-docs'\.query: stdio server '.*' declares no resources capability/),
    ]);
  });

  it("a closed client is still an error, not an empty result", async () => {
    const other = await MCPClient.start(new StdioServer({ command: NODE, args: [FILESYSTEM, dir] }));
    const memory = mcpResources(other);
    await other.stop();
    await expect(memory.query("x")).rejects.toThrow(/MCPClient not entered/);
    await expect(mcpPrompts(other)).rejects.toThrow(/MCPClient not entered/);
  });

  it("trustReadOnlyHint is off by default: every tool is side-effecting, whatever its annotations", async () => {
    const tools = Object.fromEntries((await mcpTools(client)).map((t) => [t.name, t]));
    expect(tools["read_text_file"]!.annotations?.readOnlyHint).toBe(true);
    expect(tools["write_file"]!.annotations?.readOnlyHint).toBe(false);
    expect(Object.values(tools).every((t) => t.sideEffecting)).toBe(true);
  });

  it("with trustReadOnlyHint, a readOnlyHint: true tool is not side-effecting; the rest still are", async () => {
    const tools = Object.fromEntries((await mcpTools(client, { trustReadOnlyHint: true })).map((t) => [t.name, t]));
    expect(tools["read_text_file"]!.sideEffecting).toBe(false);
    expect(tools["list_directory"]!.sideEffecting).toBe(false);
    expect(tools["write_file"]!.sideEffecting).toBe(true);
    expect(tools["edit_file"]!.sideEffecting).toBe(true);
    await expect(mcpTools(client, { trustReadOnlyHint: "yes" as never })).rejects.toThrow(
      `mcpTools: 'trustReadOnlyHint' must be true or false, got string "yes"`,
    );
    await expect(mcpTools(client, { prefx: "fs_" } as never)).rejects.toThrow(
      "mcpTools: unknown option 'prefx'. Accepted options: prefix, keepImages, trustReadOnlyHint",
    );
    expect(() => mcpResources(client, { ttl: 5 } as never)).toThrow("mcpResources: unknown option 'ttl'. Accepted options: name, ttlMs");
    expect(() => mcpResources(client, { ttlMs: -1 })).toThrow("mcpResources: ttlMs must be a non-negative number of milliseconds, got -1");
    await expect(mcpPrompts(client, { log: console } as never)).rejects.toThrow(
      "mcpPrompts: unknown option 'log'. Accepted options: logger",
    );
  });

  it('under "gated" a trusted read is not asked about; untrusted, it is; a write is asked either way', async () => {
    const run = async (trust: boolean): Promise<string[]> => {
      const asker = recordingAsker();
      const llm = FakeLLM.script([
        new Turn({
          toolCalls: [
            { id: "r", name: "read_text_file", arguments: { path: join(dir, "notes.txt") } },
            { id: "w", name: "write_file", arguments: { path: join(dir, `out-${trust}.txt`), content: "x" } },
          ],
        }),
        new Turn({ content: "done" }),
      ]);
      const ctx = makeTestCtx({ llm, autonomy: "gated", asker });
      const result = await new Agent({
        name: "fs",
        cognition: new ReActCognition({ tools: await mcpTools(client, { trustReadOnlyHint: trust }) }),
      }).run("read then write", ctx);
      expect(result.toolCalls.find((c) => c.id === "r")!.result).toBe("remember the milk\n");
      return asker.asked;
    };
    expect(await run(false)).toEqual(["read_text_file", "write_file"]);
    expect(await run(true)).toEqual(["write_file"]);
  });
});

describe("progress from server-everything's long-running operation", () => {
  let client: MCPClient;
  beforeAll(async () => {
    client = await MCPClient.start(new StdioServer({ command: NODE, args: [EVERYTHING, "stdio"] }));
  });
  afterAll(async () => {
    await client?.stop();
  });

  it("callTool(..., { onProgress }) sees each step, in order, before the result", async () => {
    const seen: CallProgress[] = [];
    let resultAt = -1;
    const result = await client
      .callTool("trigger-long-running-operation", { duration: 2, steps: 4 }, { onProgress: (p) => void seen.push({ ...p }) })
      .then((r) => {
        resultAt = seen.length;
        return r;
      });
    expect(result.isError).toBeFalsy();
    // Steps 1-3 arrive 500 ms apart, each before the result. The 4th is sent
    // just before the result, and SDK 1.32.2 runs notification handlers a
    // microtask late while it settles a response at once: when both arrive in
    // one read, the last progress is dropped upstream. So: 1, 2, 3 in order,
    // then at most the 4th, all before the result.
    expect(seen.slice(0, 3).map((p) => [p.progress, p.total])).toEqual([
      [1, 4],
      [2, 4],
      [3, 4],
    ]);
    expect(seen.slice(3).map((p) => [p.progress, p.total])).toEqual(seen.length === 4 ? [[4, 4]] : []);
    expect(resultAt).toBe(seen.length);
  });

  it("without onProgress the call still completes (progress is asked for all the same: it restarts the deadline)", async () => {
    const result = await client.callTool("trigger-long-running-operation", { duration: 1, steps: 2 });
    expect(result.isError).toBeFalsy();
  });
});
