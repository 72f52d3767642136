/** @module test/mcp-client/stdio-client.test */
import { getEventListeners } from "node:events";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Agent, AgentkitError, Cancelled, NotImplementedError, ReActCognition, McpConnectError, McpRequestError } from "../../src/index.js";
import { MCPClient, StdioServer, mcpPrompts, mcpResources, mcpTools } from "../../src/mcp/index.js";
import { FakeLLM, Turn, makeTestCtx } from "../../src/testing/index.js";
import { NODE, captureLog, fixture, newTag, taggedProcesses } from "./support.js";
import { untilValue } from "../helpers/wait.js";

const NOT_ENTERED = "MCPClient not entered — use await using c = await MCPClient.start(...)";

type Stats = Record<string, number>;

function countingServer(extra: { env?: Record<string, string>; cwd?: string } = {}): StdioServer {
  return new StdioServer({ command: NODE, args: [fixture("counting-stdio-server.mjs")], ...extra });
}

async function stats(client: MCPClient): Promise<Stats> {
  const r = await client.callTool("stats", {});
  return JSON.parse((r.content[0] as { text: string }).text) as Stats;
}

function text(r: { content: unknown[] }): string {
  return (r.content[0] as { text: string }).text;
}

describe("MCPClient over stdio (SDK McpServer subprocess)", () => {
  let client: MCPClient;
  let tag: string;

  beforeEach(async () => {
    tag = newTag();
    client = await MCPClient.start(countingServer({ env: { AGENTKIT_TREE_TAG: tag } }));
  });
  afterEach(async () => {
    await client.stop();
    expect(taggedProcesses(tag)).toEqual([]);
  });

  it("opens transport and session in one step and calls a tool", async () => {
    expect(client.isOpen).toBe(true);
    expect(client.session.getServerVersion()).toMatchObject({ name: "counting", version: "1.0.0" });
    const result = await client.callTool("add", { a: 2, b: 3 });
    expect(result).toEqual({ content: [{ type: "text", text: "5" }] });
    expect(client.pid).toBeGreaterThan(0);
    expect(client.stderrTail).toBe("counting server ready");
  });

  it("after close: session, lists and calls throw the seed's message; close is idempotent", async () => {
    await client.stop();
    expect(client.isOpen).toBe(false);
    expect(() => client.session).toThrow(AgentkitError);
    expect(() => client.session).toThrow(expect.objectContaining({ code: "mcp_not_entered" }));
    expect(() => client.session).toThrow(NOT_ENTERED);
    await expect(client.listTools()).rejects.toThrow(NOT_ENTERED);
    await expect(client.listResources()).rejects.toThrow(NOT_ENTERED);
    await expect(client.listPrompts()).rejects.toThrow(NOT_ENTERED);
    await expect(client.callTool("add", { a: 1, b: 1 })).rejects.toThrow(NOT_ENTERED);
    await expect(client.readResource("docs://runbook")).rejects.toThrow(NOT_ENTERED);
    await expect(client.getPrompt("triage")).rejects.toThrow(NOT_ENTERED);
    await client.stop();
    expect(taggedProcesses(tag)).toEqual([]);
  });

  it("caches listTools for the TTL, refreshes on forceRefresh, and shares one request between concurrent callers", async () => {
    const [a, b, c] = await Promise.all([client.listTools(), client.listTools(), client.listTools()]);
    expect(a.map((t) => t.name)).toContain("add");
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    expect((await stats(client))["tools/list"]).toBe(1);

    await client.listTools();
    expect((await stats(client))["tools/list"]).toBe(1); // cached
    // The server announces the new tool (tools/list_changed, sent before the call's answer): the cache is dropped.
    await client.callTool("add_tool", { name: "late" });
    expect((await client.listTools()).map((t) => t.name)).toContain("late");
    expect((await stats(client))["tools/list"]).toBe(2);
    expect((await client.listTools()).map((t) => t.name)).toContain("late"); // the new list is cached
    expect((await stats(client))["tools/list"]).toBe(2);
    await client.listTools({ forceRefresh: true });
    expect((await stats(client))["tools/list"]).toBe(3);
  });

  it("caches listResources the same way, never caches listPrompts", async () => {
    await client.listResources();
    await client.listResources();
    expect((await stats(client))["resources/list"]).toBe(1);
    await client.listResources({ forceRefresh: true });
    expect((await stats(client))["resources/list"]).toBe(2);
    const p1 = await client.listPrompts();
    await client.listPrompts();
    expect(p1.map((p) => p.name)).toEqual(["triage", "review", "brittle"]);
    expect((await stats(client))["prompts/list"]).toBe(2);
  });

  it("returns copies of frozen SDK objects: a caller cannot edit the cache", async () => {
    const tools = await client.listTools();
    expect(Object.isFrozen(tools[0])).toBe(true);
    expect(Object.isFrozen(tools[0]!.inputSchema)).toBe(true);
    tools.length = 0;
    expect((await client.listTools()).length).toBeGreaterThan(0);
  });

  it("a failed refresh raises and the old list is not served as fresh afterwards", async () => {
    expect((await client.listTools()).length).toBeGreaterThan(0);
    await client.callTool("break_lists", { on: true });
    const err = await client.listTools({ forceRefresh: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpRequestError);
    expect((err as McpRequestError).message).toMatch(
      /^MCP tools\/list on stdio server '.*counting-stdio-server\.mjs' failed: list store offline$/,
    );
    expect((err as McpRequestError).rpcCode).toBe(-32603);
    // Without forceRefresh, the next call goes to the server again (and fails) instead of serving the old list.
    await expect(client.listTools()).rejects.toThrow("list store offline");
    await client.callTool("break_lists", { on: false });
    expect((await client.listTools()).map((t) => t.name)).toContain("add");
    expect((await stats(client))["tools/list"]).toBe(4);
  });

  it("cancellation is checked before dispatch: a cancelled run never reaches the server", async () => {
    const ctx = makeTestCtx();
    ctx.cancel();
    await expect(client.callTool("slow", {}, { ctx })).rejects.toBeInstanceOf(Cancelled);
    const s = await stats(client);
    expect(s.slowStarted).toBe(0);
  });

  it("aborting the run mid-call sends notifications/cancelled and the session stays usable", async () => {
    const ctx = makeTestCtx();
    const call = client.callTool("slow", {}, { ctx });
    const settled = call.catch((e: unknown) => e);
    await untilValue(
      () => stats(client),
      (s) => s.slowStarted === 1,
      "the slow tool to start",
    );
    ctx.cancel();
    const err = await settled;
    expect(err).toBeInstanceOf(Cancelled);
    expect((err as Cancelled).message).toContain("MCP tools/call 'slow' on stdio server");
    expect((err as Cancelled).message).toContain("cancelled mid-call");
    const s = await untilValue(
      () => stats(client),
      (v) => v.slowCancelled === 1,
      "the server to cancel the slow call",
    );
    expect(s.cancelledNotifications).toBe(1);
    expect(s.slowCancelled).toBe(1);
    expect(text(await client.callTool("add", { a: 40, b: 2 }, { ctx: makeTestCtx() }))).toBe("42");
  });

  it("many calls under one long-lived run leave no listener on its signal, and it still cancels the next call", async () => {
    const ctx = makeTestCtx();
    const signal = new AbortController().signal;
    // Count the per-call cancellation hooks the client registers on the run, and how many it takes back.
    let registered = 0;
    let unregistered = 0;
    const onCancel = ctx.onCancel.bind(ctx);
    ctx.onCancel = (fn) => {
      registered++;
      const off = onCancel(fn);
      return () => {
        unregistered++;
        off();
      };
    };
    for (let i = 0; i < 50; i++) expect(text(await client.callTool("add", { a: i, b: 1 }, { ctx, signal }))).toBe(String(i + 1));
    expect(registered).toBe(50);
    expect(unregistered).toBe(50);
    expect(getEventListeners(ctx.signal, "abort")).toHaveLength(0);
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
    const call = client.callTool("slow", {}, { ctx }).catch((e: unknown) => e);
    await untilValue(
      () => stats(client),
      (s) => s.slowStarted === 1,
      "the slow tool to start",
    );
    ctx.cancel();
    expect(await call).toBeInstanceOf(Cancelled);
    await untilValue(
      () => stats(client),
      (s) => s.slowCancelled === 1,
      "the server to cancel the slow call",
    );
  });

  it("a per-call signal and timeout work the same way", async () => {
    const ac = new AbortController();
    const call = client.callTool("slow", {}, { signal: ac.signal }).catch((e: unknown) => e);
    await untilValue(
      () => stats(client),
      (s) => s.slowStarted === 1,
      "the slow tool to start",
    );
    ac.abort();
    expect(await call).toBeInstanceOf(Cancelled);
    const timedOut = await client.callTool("slow", {}, { timeoutMs: 200 }).catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(McpRequestError);
    expect((timedOut as McpRequestError).message).toContain("Request timed out");
    expect(text(await client.callTool("add", { a: 1, b: 1 }))).toBe("2");
  });

  it("readResource returns the text and drops binary blobs", async () => {
    expect(await client.readResource("docs://runbook")).toBe("Restart the ingest worker, then check the queue depth.");
    expect(await client.readResource("docs://guide")).toBe("# Guide\nBe brief.");
    expect(await client.readResource("bin://logo")).toBe("");
    await expect(client.readResource("docs://missing")).rejects.toThrow(
      /^MCP resources\/read 'docs:\/\/missing' on stdio server .* failed: MCP error -32602: (MCP error -32602: )?Resource docs:\/\/missing not found$/,
    );
  });

  it("getPrompt renders an argumented prompt to its text", async () => {
    expect(await client.getPrompt("review", { diff: "-a +b" })).toBe("Review this diff: -a +b");
    expect(await client.getPrompt("triage")).toBe("You triage incidents. Be terse.");
    const err = await client.getPrompt("nope").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpRequestError);
    expect((err as Error).message).toContain("MCP prompts/get 'nope' on stdio server");
  });
});

describe("adapters over stdio", () => {
  let client: MCPClient;
  beforeEach(async () => {
    client = await MCPClient.start(countingServer());
  });
  afterEach(async () => {
    await client.stop();
  });

  it("mcpTools: prefixed names, schema passed through, safety flags, flattened results", async () => {
    const listed = await client.listTools();
    const tools = await mcpTools(client, { prefix: "demo_" });
    expect(tools.map((t) => t.name)).toEqual(listed.map((t) => `demo_${t.name}`));
    const add = tools.find((t) => t.name === "demo_add")!;
    expect(add.description).toBe("Add two integers.");
    expect(add.schema.name).toBe("demo_add");
    expect(add.schema.description).toBe("Add two integers.");
    expect(add.schema.parameters).toEqual(listed.find((t) => t.name === "add")!.inputSchema);
    expect(Object.isFrozen(add.schema.parameters)).toBe(true);
    expect(Object.isFrozen(add)).toBe(true);
    expect(add.sideEffecting).toBe(true);
    expect(add.requiresApproval).toBe(false);
    expect(add.caps).toEqual([]);
    expect(add.mcpName).toBe("add");

    const ctx = makeTestCtx();
    const run = (name: string, args: Record<string, unknown> = {}) => tools.find((t) => t.name === name)!.run(args, ctx);
    expect(await run("demo_add", { a: 2, b: 3 })).toBe("5");
    expect(await run("demo_mixed")).toBe(
      "first\n[image content omitted]\n[audio content omitted]\n[resource content omitted]\n[Resource link: y] docs://y\nlast",
    );
    expect(await run("demo_fail")).toBe("ERROR: nope: the tool failed");
    expect(await run("demo_structured")).toBe('{"ok":true}');
    // The server validates arguments; its refusal comes back as an isError string, not an exception.
    expect(await run("demo_add", { a: "two", b: 3 })).toMatch(/^ERROR: MCP error -32602: Input validation error/);
    // No prefix: the server's own names.
    expect((await mcpTools(client)).map((t) => t.name)).toEqual(listed.map((t) => t.name));
  });

  it("mcpTools drop into ReActCognition unchanged; under 'gated' every MCP call asks", async () => {
    const llm = FakeLLM.script([
      new Turn({ toolCalls: [{ id: "1", name: "demo_add", arguments: { a: 2, b: 3 } }] }),
      new Turn({ content: "2 + 3 is 5." }),
    ]);
    const ctx = makeTestCtx({ llm });
    const agent = new Agent({
      name: "calc",
      model: "fake",
      prompt: "Use the tools.",
      cognition: new ReActCognition({ tools: await mcpTools(client, { prefix: "demo_" }) }),
    });
    const result = await agent.run("What is 2 + 3?", ctx);
    expect(result.output).toBe("2 + 3 is 5.");
    expect(result.stopReason).toBe("complete");
    expect(result.toolCalls).toEqual([{ id: "1", name: "demo_add", arguments: { a: 2, b: 3 }, result: "5", ok: true }]);
    expect(llm.requests[0]!.tools!.map((t) => t.name)).toContain("demo_add");

    const asked: string[] = [];
    const gated = makeTestCtx({
      autonomy: "gated",
      llm: FakeLLM.script([
        new Turn({ toolCalls: [{ id: "1", name: "demo_add", arguments: { a: 1, b: 1 } }] }),
        new Turn({ content: "ok" }),
      ]),
      asker: { ask: async (req) => (asked.push(req.toolCall!.name), { kind: "approve" }) },
    });
    const r2 = await new Agent({ name: "calc", cognition: new ReActCognition({ tools: await mcpTools(client, { prefix: "demo_" }) }) }).run(
      "1+1",
      gated,
    );
    expect(asked).toEqual(["demo_add"]);
    expect(r2.toolCalls[0]!.result).toBe("2");
  });

  it("mcpPrompts keeps static prompts, drops argumented ones with the seed's warning, skips failed renders", async () => {
    const log = captureLog();
    try {
      const prompts = await mcpPrompts(client);
      expect(Object.keys(prompts)).toEqual(["triage"]);
      expect(prompts.triage!.version).toBe("mcp:1");
      expect(prompts.triage!.template).toBe("You triage incidents. Be terse.");
      expect(prompts.triage!.name).toBe("triage");
      expect(log.warnings[0]).toBe(
        "mcpPrompts: dropping 'review' — MCP prompt requires arguments, cannot render statically. Use MCPClient.getPrompt(name, args) directly.",
      );
      expect(log.warnings[1]).toMatch(
        /^mcpPrompts: skipping 'brittle' — rendering it failed: McpRequestError: MCP prompts\/get 'brittle' on stdio server .* failed: .*template store unavailable/,
      );
      expect(log.warnings).toHaveLength(2);
    } finally {
      log.restore();
    }
  });

  it("mcpResources: substring match, rank then first-seen order, top-k read, metadata, read-only", async () => {
    const memory = mcpResources(client, { name: "runbooks" });
    expect(memory.name).toBe("runbooks");
    const ctx = makeTestCtx();
    const [top] = await memory.query("runbook", { k: 1, ctx });
    expect(top!.content).toBe("Restart the ingest worker, then check the queue depth.");
    expect(top!.metadata).toEqual({ uri: "docs://runbook", name: "runbook", mimeType: "text/plain" });
    // "RUNBOOK" matches runbook (name, description, uri) and guide (description only).
    expect((await memory.query("RUNBOOK", { k: 5, ctx })).map((i) => i.metadata.uri)).toEqual(["docs://runbook", "docs://guide"]);
    // "docs://" ties both on the URI: first-seen order.
    const docs = await memory.query("docs://", { k: 5, ctx });
    expect(docs.map((i) => i.metadata.uri)).toEqual(["docs://runbook", "docs://guide"]);
    expect(docs[1]!.content).toBe("# Guide\nBe brief.");
    expect(docs[1]!.metadata).toEqual({ uri: "docs://guide", name: "guide", mimeType: "text/markdown" });
    expect((await memory.query("logo", { ctx }))[0]!.metadata).toEqual({ uri: "bin://logo", name: "logo", mimeType: null });
    expect(await memory.query("no such thing", { ctx })).toEqual([]);
    await expect(memory.write({ content: "x", metadata: {} })).rejects.toBeInstanceOf(NotImplementedError);
    await expect(memory.write({ content: "x", metadata: {} })).rejects.toThrow(
      "mcpResources 'runbooks': write is not supported — MCP resources are server-authored, and a client-side write path would be a protocol violation",
    );
    const cancelled = makeTestCtx();
    cancelled.cancel();
    await expect(memory.query("runbook", { ctx: cancelled })).rejects.toBeInstanceOf(Cancelled);
  });

  it("mcpResources has its own 30 s list cache that a client forceRefresh does not reach through", async () => {
    const memory = mcpResources(client);
    await memory.query("runbook");
    await memory.query("guide");
    expect((await stats(client))["resources/list"]).toBe(1);
    await client.listResources({ forceRefresh: true });
    expect((await stats(client))["resources/list"]).toBe(2);
    await memory.query("runbook");
    expect((await stats(client))["resources/list"]).toBe(2);
    await client.stop();
    await expect(memory.query("runbook")).rejects.toThrow(NOT_ENTERED);
  });
});

describe("MCPClient TTL expiry", () => {
  it("lists again once the TTL has passed, and an expired list is not served when the refresh fails", async () => {
    // The TTL is what this is about: a fake clock (only the clocks a cache reads; the server is a real
    // subprocess), on before the client is made, as the SDK's cache takes its clock then.
    vi.useFakeTimers({ toFake: ["Date", "performance"] });
    try {
      await using client = await MCPClient.start(countingServer(), { ttlMs: 150 });
      await client.listTools();
      vi.advanceTimersByTime(149);
      await client.listTools();
      expect((await stats(client))["tools/list"]).toBe(1);
      vi.advanceTimersByTime(2);
      await client.listTools();
      expect((await stats(client))["tools/list"]).toBe(2);
      await client.callTool("break_lists", { on: true });
      vi.advanceTimersByTime(151);
      await expect(client.listTools()).rejects.toThrow("list store offline");
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("StdioServer env and cwd", () => {
  it("env overlays process.env in the child; cwd is honoured", async () => {
    process.env.AGENTKIT_PARENT_ONLY = "from-parent";
    try {
      await using client = await MCPClient.start(
        countingServer({ env: { AGENTKIT_OVERLAY: "from-config", HOME: "/overlaid" }, cwd: "/tmp" }),
      );
      const read = async (name: string) => text(await client.callTool("env", { name }));
      expect(await read("AGENTKIT_PARENT_ONLY")).toBe("from-parent");
      expect(await read("AGENTKIT_OVERLAY")).toBe("from-config");
      expect(await read("HOME")).toBe("/overlaid");
      expect(text(await client.callTool("cwd", {}))).toBe("/tmp");
    } finally {
      delete process.env.AGENTKIT_PARENT_ONLY;
    }
  });

  it("stderr: 'inherit' keeps no tail", async () => {
    await using client = await MCPClient.start(
      new StdioServer({ command: NODE, args: [fixture("counting-stdio-server.mjs")], stderr: "inherit" }),
    );
    expect(client.stderrTail).toBe("");
  });
});

describe("open() unwinds what it opened", () => {
  it("a server that dies during initialize: McpConnectError with its stderr tail, no process left", async () => {
    const tag = newTag();
    const server = new StdioServer({ command: NODE, args: [fixture("crash-during-initialize.mjs")], env: { AGENTKIT_TREE_TAG: tag } });
    const err = await MCPClient.start(server).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpConnectError);
    const e = err as McpConnectError;
    expect(e.code).toBe("mcp_connect");
    expect(e.message).toMatch(
      /^MCPClient could not open stdio server '.*crash-during-initialize\.mjs': Connection closed \(the server process exited with code 3\)\. Check the command\/URL and credentials, then retry\.\nThe server's stderr ended with:\n/,
    );
    expect(e.message.endsWith("crash-during-initialize: got initialize\nfatal: DATABASE_URL is not set")).toBe(true);
    expect(Buffer.byteLength(e.stderrTail)).toBeLessThanOrEqual(4096);
    expect(Buffer.byteLength(e.stderrTail)).toBeGreaterThan(3500);
    expect(e.detail).toBe("the server process exited with code 3");
    expect(taggedProcesses(tag)).toEqual([]);
  });

  it("a command that cannot be spawned: McpConnectError naming ENOENT", async () => {
    const err = await MCPClient.start(new StdioServer({ command: "agentkit-no-such-binary" })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpConnectError);
    expect((err as Error).message).toMatch(
      /^MCPClient could not open stdio server 'agentkit-no-such-binary': spawn agentkit-no-such-binary ENOENT\./,
    );
  });

  it("an aborted open() closes the spawned server", async () => {
    const tag = newTag();
    const ac = new AbortController();
    // node -e that never answers: initialize hangs until the abort.
    const server = new StdioServer({
      command: NODE,
      args: ["-e", "setInterval(() => {}, 1000); process.stdin.resume()"],
      env: { AGENTKIT_TREE_TAG: tag },
    });
    const opening = MCPClient.start(server, { signal: ac.signal }).catch((e: unknown) => e);
    await untilValue(
      () => taggedProcesses(tag),
      (p) => p.length === 1,
      "one server process with the tag",
    );
    ac.abort(new Error("caller gave up"));
    const err = await opening;
    expect(err).toBeInstanceOf(McpConnectError);
    expect((err as Error).message).toContain("caller gave up");
    expect(taggedProcesses(tag)).toEqual([]);
  });
});

describe("a server that dies mid-session", () => {
  it("calls fail with a message saying the connection is gone, with the exit status", async () => {
    await using client = await MCPClient.start(countingServer());
    await client.listTools(); // cached now
    process.kill(client.pid!, "SIGKILL");
    const err = await untilValue(
      () => client.callTool("add", { a: 1, b: 1 }).catch((e: unknown) => e),
      (e) => e instanceof McpRequestError && (e as Error).message.includes("connection is gone"),
      "the call to fail with 'the connection is gone'",
    );
    expect(err).toBeInstanceOf(McpRequestError);
    expect((err as Error).message).toContain("The connection is gone (the server process was killed by SIGKILL); open a new MCPClient");
    // The cached list of a server that went away is not served.
    await expect(client.listTools()).rejects.toThrow(/^MCP tools\/list on stdio server .* failed: .*The connection is gone/s);
  });
});
