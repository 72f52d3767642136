/** @module test/mcp-client/third-party.test */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCPClient, StdioServer, StreamableHttpServer, mcpPrompts, mcpResources, mcpTools, type McpTool } from "../../src/mcp/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { EVERYTHING, FILESYSTEM, NODE, captureLog, startEverythingHttp, type ServerProcess } from "./support.js";

const DROP = (name: string) =>
  `mcpPrompts: dropping '${name}' — MCP prompt requires arguments, cannot render statically. Use MCPClient.getPrompt(name, args) directly.`;

/** A valid 8 kHz mono 16-bit PCM WAV of `samples` silent samples. */
function tinyWav(samples = 8): Buffer {
  const data = samples * 2;
  const b = Buffer.alloc(44 + data);
  b.write("RIFF", 0);
  b.writeUInt32LE(36 + data, 4);
  b.write("WAVEfmt ", 8);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20); // PCM
  b.writeUInt16LE(1, 22); // mono
  b.writeUInt32LE(8000, 24);
  b.writeUInt32LE(16000, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write("data", 36);
  b.writeUInt32LE(data, 40);
  return b;
}

// The same acceptance list, over both of server-everything's transports.
function everythingSuite(transport: string, open: () => Promise<MCPClient>): void {
  describe(`server-everything 2026.8.31 over ${transport}`, () => {
    let client: MCPClient;
    let tools: Record<string, McpTool>;
    beforeAll(async () => {
      client = await open();
      tools = Object.fromEntries((await mcpTools(client, { prefix: "ev_" })).map((t) => [t.name, t]));
    });
    afterAll(async () => {
      await client?.stop();
    });
    const run = (name: string, args: Record<string, unknown> = {}) => tools[`ev_${name}`]!.run(args, makeTestCtx());

    it("its tools are adapted and called: echo, get-sum", async () => {
      expect(Object.keys(tools)).toEqual(
        expect.arrayContaining(["ev_echo", "ev_get-sum", "ev_get-tiny-image", "ev_get-resource-reference"]),
      );
      expect(tools["ev_echo"]!.schema.parameters).toMatchObject({ type: "object", required: ["message"] });
      expect(await run("echo", { message: "hello" })).toBe("Echo: hello");
      expect(await run("get-sum", { a: 2, b: 3 })).toBe("The sum of 2 and 3 is 5.");
    });

    it("get-tiny-image yields the image marker, get-resource-reference the resource marker", async () => {
      expect(await run("get-tiny-image")).toBe(
        "Here's the image you requested:\n[image content omitted]\nThe image above is the MCP logo.",
      );
      expect(await run("get-resource-reference", { resourceType: "Text", resourceId: 1 })).toBe(
        "Returning resource reference for Resource 1:\n[resource content omitted]\nYou can access this resource using the URI: demo://resource/dynamic/text/1",
      );
      // Its argument check fails as an isError result, which the adapter turns into a string.
      expect(await run("get-resource-reference", { resourceType: "blob", resourceId: 1 })).toMatch(
        /^ERROR: .*Invalid arguments for tool get-resource-reference/,
      );
    });

    it("its resources are queried through mcpResources", async () => {
      const memory = mcpResources(client, { name: "everything-docs" });
      const [item, ...rest] = await memory.query("architecture", { k: 3, ctx: makeTestCtx() });
      expect(rest).toEqual([]);
      expect(item!.metadata).toEqual({
        uri: "demo://resource/static/document/architecture.md",
        name: "architecture.md",
        mimeType: "text/markdown",
      });
      expect(item!.content).toMatch(/^# Everything Server – Architecture/);
      // Every static document matches "document" on its URI only: first-seen (listing) order, cut at k.
      const docs = await memory.query("document", { k: 3 });
      expect(docs.map((d) => d.metadata.name)).toEqual(["architecture.md", "extension.md", "features.md"]);
    });

    it("mcpPrompts keeps simple-prompt and drops args-prompt (and the other argumented ones)", async () => {
      const log = captureLog();
      try {
        const prompts = await mcpPrompts(client);
        expect(Object.keys(prompts)).toEqual(["simple-prompt"]);
        expect(prompts["simple-prompt"]!.version).toBe("mcp:1");
        expect(prompts["simple-prompt"]!.template).toBe("This is a simple prompt without arguments.");
        expect(log.warnings).toEqual([DROP("args-prompt"), DROP("completable-prompt"), DROP("resource-prompt")]);
      } finally {
        log.restore();
      }
    });

    it("getPrompt('args-prompt', {...}) renders it", async () => {
      expect(await client.getPrompt("args-prompt", { city: "Paris", state: "TX" })).toBe("What's weather in Paris, TX?");
      await expect(client.getPrompt("args-prompt", {})).rejects.toThrow(/MCP prompts\/get 'args-prompt' on .* failed: .*city/);
    });
  });
}

everythingSuite("stdio", () => MCPClient.start(new StdioServer({ command: NODE, args: [EVERYTHING, "stdio"] })));

let httpServer: ServerProcess | undefined;
everythingSuite("streamableHttp (bound to 127.0.0.1 by a preload)", async () => {
  httpServer = await startEverythingHttp();
  return MCPClient.start(new StreamableHttpServer({ url: httpServer.url }));
});
afterAll(async () => {
  await httpServer?.stop();
});

describe("server-filesystem 2026.8.31 over stdio", () => {
  let dir: string;
  let client: MCPClient;
  let tools: Record<string, McpTool>;
  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "agentkit-fs-")));
    writeFileSync(join(dir, "notes.txt"), "remember the milk\n");
    writeFileSync(join(dir, "tiny.wav"), tinyWav());
    client = await MCPClient.start(new StdioServer({ command: NODE, args: [FILESYSTEM, dir] }));
    tools = Object.fromEntries((await mcpTools(client, { prefix: "fs_" })).map((t) => [t.name, t]));
  });
  afterAll(async () => {
    await client?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a real file-read tool returns the file's text", async () => {
    expect(tools["fs_read_text_file"]!.description).not.toBe("");
    expect(await tools["fs_read_text_file"]!.run({ path: join(dir, "notes.txt") }, makeTestCtx())).toBe("remember the milk\n");
  });

  it("read_media_file on a .wav yields the audio marker", async () => {
    const raw = await client.callTool("read_media_file", { path: join(dir, "tiny.wav") });
    expect(raw.content).toEqual([expect.objectContaining({ type: "audio", mimeType: "audio/wav" })]);
    expect(await tools["fs_read_media_file"]!.run({ path: join(dir, "tiny.wav") }, makeTestCtx())).toBe("[audio content omitted]");
  });

  it("a refused path comes back as an ERROR string, not an exception", async () => {
    expect(await tools["fs_read_text_file"]!.run({ path: "/etc/hostname" }, makeTestCtx())).toMatch(
      /^ERROR: .*Access denied - path outside allowed directories/,
    );
  });
});
