/**
 * @module test/mcp-serve/list-changed.test
 * Registering on a running spec over a real loopback session: addTool /
 * addResource / addPrompt extend what the session lists and send the
 * matching list_changed notification; the spec's views follow; bad
 * registrations are refused with the reason.
 */
import {
  ResourceListChangedNotificationSchema,
  PromptListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { tool } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { serveRegistry, stdioCommand, type McpServerSpec } from "../../src/mcp/index.js";
import { OptionsError } from "../../src/index.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const specs: McpServerSpec[] = [];
afterEach(async () => {
  for (const s of specs.splice(0)) await s.stop();
});

const named = (name: string) => tool({ name, description: `The ${name} tool.`, sideEffecting: false }, () => `${name}!`);

/** An SDK client whose `streamOpen` resolves once its standalone GET stream (where list_changed travels) is answered. */
async function clientWithStream(url: string): Promise<{ client: Client & AsyncDisposable; streamOpen: Promise<void> }> {
  let opened!: () => void;
  const streamOpen = new Promise<void>((r) => (opened = r));
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: async (u, init) => {
      const res = await fetch(u, init?.signal ? { ...init, signal: AbortSignal.any([init.signal]) } : init);
      if ((init?.method ?? "GET") === "GET" && res.ok) opened();
      return res;
    },
  });
  const client = new Client({ name: "grow-test", version: "0" });
  await client.connect(transport);
  return { client: Object.assign(client, { [Symbol.asyncDispose]: () => client.close() }), streamOpen };
}

function waitFor(register: (resolve: () => void) => void): Promise<void> {
  return new Promise((resolve) => register(resolve));
}

describe("registering on a running spec", () => {
  it("addTool, addResource and addPrompt send list_changed and the session sees the new items", async () => {
    const spec = await serveRegistry([named("first")], {
      name: "grow",
      ctx: makeTestCtx(),
      auth: "none",
      resources: [{ uri: "a://one", name: "one", read: () => "1" }],
      prompts: [{ name: "p1", render: () => "one" }],
    });
    specs.push(spec);
    await spec.start();
    const { client, streamOpen } = await clientWithStream(spec.url!);
    await using c = client;
    // list_changed travels on the session's standalone GET stream, which the client opens after initialize.
    await streamOpen;

    const tools = waitFor((r) => c.setNotificationHandler(ToolListChangedNotificationSchema, () => r()));
    spec.addTool(named("second"));
    await tools;
    // A tool added later is listed after the module's read_result (result budgets are on by default).
    expect((await c.listTools()).tools.map((t) => t.name)).toEqual(["first", "read_result", "second"]);
    expect((await c.callTool({ name: "second", arguments: {} })).content).toEqual([{ type: "text", text: "second!" }]);
    expect(spec.toolNames).toEqual(["mcp__grow__first", "mcp__grow__read_result", "mcp__grow__second"]);

    const resources = waitFor((r) => c.setNotificationHandler(ResourceListChangedNotificationSchema, () => r()));
    spec.addResource({ uriTemplate: "a://two/{n}", name: "two", read: ({ n }) => `two ${n}` });
    await resources;
    expect((await c.readResource({ uri: "a://two/x" })).contents).toEqual([{ uri: "a://two/x", mimeType: "text/plain", text: "two x" }]);

    const prompts = waitFor((r) => c.setNotificationHandler(PromptListChangedNotificationSchema, () => r()));
    spec.addPrompt({ name: "p2", render: () => "two" });
    await prompts;
    expect((await c.listPrompts()).prompts.map((p) => p.name)).toEqual(["p1", "p2"]);
  });

  it("refuses a duplicate, a colliding name and a stdio spec", async () => {
    const spec = await serveRegistry([named("first")], { name: "grow", ctx: makeTestCtx(), auth: "none" });
    specs.push(spec);
    await spec.start();
    expect(() => spec.addTool(named("first"))).toThrow("addTool: a tool named 'first' is already served");
    spec.addTool(named("a.b"));
    expect(() => spec.addTool(named("a_b"))).toThrow(expect.objectContaining({ code: "mcp_name" }));
    expect(() => spec.addPrompt({ name: "x", render: () => "" })).not.toThrow();
    const stdio = await serveRegistry([named("first")], {
      name: "grow",
      ctx: makeTestCtx(),
      transport: "stdio",
      command: stdioCommand(process.execPath),
    });
    specs.push(stdio);
    expect(() => stdio.addTool(named("second"))).toThrow(OptionsError);
  });
});
