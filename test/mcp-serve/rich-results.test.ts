/**
 * @module test/mcp-serve/rich-results.test
 * Rich tool results over a real loopback session: MCP content blocks (text,
 * image, audio, resource link, embedded resource) and a whole result go out
 * unchanged; structuredContent with an outputSchema (which the SDK client
 * validates); a ToolContent's parts; plain values keep today's text.
 */
import { afterEach, describe, expect, it } from "vitest";
import { DefinitionError, tool, ToolContent } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { serveRegistry, type McpServerSpec } from "../../src/mcp/index.js";
import { resultText } from "../../src/tools/result-text.js";
import { sdkClientFor } from "./helpers.js";

const specs: McpServerSpec[] = [];
afterEach(async () => {
  for (const s of specs.splice(0)) await s.stop();
});

const PNG = "iVBORw0KGgo=";
const returning = (name: string, value: unknown, extra: Record<string, unknown> = {}) =>
  tool({ name, description: `Returns ${name}.`, sideEffecting: false, ...extra }, () => value);

const blocks = [
  { type: "text", text: "see:" },
  { type: "image", data: PNG, mimeType: "image/png" },
  { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
  { type: "resource_link", uri: "notes://1", name: "note 1", mimeType: "text/plain" },
  { type: "resource", resource: { uri: "notes://2", mimeType: "text/plain", text: "two" } },
];
const WEATHER = {
  type: "object",
  properties: { temperature: { type: "number" }, conditions: { type: "string" } },
  required: ["temperature", "conditions"],
  additionalProperties: false,
};

const tools = [
  returning("blocks", blocks),
  returning("one_block", { type: "image", data: PNG, mimeType: "image/png", annotations: { audience: ["user"] } }),
  returning("whole", { content: [{ type: "text", text: "careful" }], isError: true, _meta: { why: "test" } }),
  returning("weather", { temperature: 21.5, conditions: "sunny" }, { outputSchema: WEATHER }),
  returning(
    "weather_rich",
    { content: [{ type: "text", text: "21.5C" }], structuredContent: { temperature: 21.5, conditions: "fair" } },
    { outputSchema: WEATHER },
  ),
  returning(
    "parts",
    new ToolContent("a chart [image content omitted]", [
      { type: "text", text: "a chart" },
      { type: "image", data: PNG, mimeType: "image/png" },
    ]),
  ),
  returning("plain_object", { content: "not blocks", n: 1 }),
  returning("plain_array", [1, 2]),
  returning("plain_text", "hello"),
];

async function client() {
  const spec = await serveRegistry(tools, { name: "rich", ctx: makeTestCtx(), auth: "none" });
  specs.push(spec);
  await spec.start();
  return sdkClientFor(spec.url!);
}

describe("rich tool results over a loopback session", () => {
  it("content blocks, one block and a whole result go out unchanged", async () => {
    await using c = await client();
    expect(await c.callTool({ name: "blocks", arguments: {} })).toEqual({ content: blocks });
    expect(await c.callTool({ name: "one_block", arguments: {} })).toEqual({
      content: [{ type: "image", data: PNG, mimeType: "image/png", annotations: { audience: ["user"] } }],
    });
    expect(await c.callTool({ name: "whole", arguments: {} })).toEqual({
      content: [{ type: "text", text: "careful" }],
      isError: true,
      _meta: { why: "test" },
    });
  });

  it("structuredContent with the tool's outputSchema (advertised; the SDK client validates it)", async () => {
    await using c = await client();
    const listed = (await c.listTools()).tools.find((t) => t.name === "weather");
    expect(listed?.outputSchema).toEqual(WEATHER);
    expect(await c.callTool({ name: "weather", arguments: {} })).toEqual({
      content: [{ type: "text", text: '{"temperature":21.5,"conditions":"sunny"}' }],
      structuredContent: { temperature: 21.5, conditions: "sunny" },
    });
    expect((await c.callTool({ name: "weather_rich", arguments: {} })).structuredContent).toEqual({
      temperature: 21.5,
      conditions: "fair",
    });
  });

  it("a ToolContent goes out as its parts; plain values keep today's text", async () => {
    await using c = await client();
    expect((await c.callTool({ name: "parts", arguments: {} })).content).toEqual([
      { type: "text", text: "a chart" },
      { type: "image", data: PNG, mimeType: "image/png" },
    ]);
    expect(await c.callTool({ name: "plain_object", arguments: {} })).toEqual({
      content: [{ type: "text", text: '{"content":"not blocks","n":1}' }],
    });
    expect(await c.callTool({ name: "plain_array", arguments: {} })).toEqual({ content: [{ type: "text", text: "[1,2]" }] });
    expect(await c.callTool({ name: "plain_text", arguments: {} })).toEqual({ content: [{ type: "text", text: "hello" }] });
  });
});

describe("rich results in-process and at definition", () => {
  it("resultText renders blocks as text a text-only model reads", () => {
    expect(resultText(blocks)).toBe("see:\n[image content omitted]\n[audio content omitted]\n[resource: notes://1]\ntwo");
    expect(resultText({ content: [], structuredContent: { a: 1 } })).toBe('{"a":1}');
    expect(resultText({ content: "x" })).toBe('{"content":"x"}');
  });

  it("an outputSchema that is not an object schema is refused when applied", () => {
    expect(() => returning("bad", 1, { outputSchema: { type: "string" } })).toThrow(DefinitionError);
    expect(() => returning("bad", 1, { outputSchema: { type: "string" } })).toThrow(
      `'outputSchema' must be a JSON Schema object with type "object"`,
    );
  });
});
