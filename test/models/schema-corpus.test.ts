/**
 * @module test/models/schema-corpus.test
 * The golden corpus of real MCP tool schemas — captured from
 * server-everything and server-filesystem (test/fixtures/schemas/
 * capture-schemas.mjs), plus server-memory-like and edge-case schemas — sent
 * through both adapters to the fakes in one request each, and every tool
 * called back by its wire name: schemas pass through unchanged (non-strict),
 * strict forms keep strict mode's rules, names the APIs refuse are mapped and
 * come back as the original.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { AnthropicLLM, OpenAILLM } from "arc-agentkit/models";
import { FakeAnthropic } from "../cli/kit/fake-anthropic.js";
import { FakeOpenAI } from "../cli/kit/fake-openai.js";
import { ask, CORPUS, corpusSchemas } from "./support.js";

type Json = Record<string, unknown>;
const WIRE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const STRICT_UNSUPPORTED = [
  "$schema",
  "default",
  "not",
  "if",
  "then",
  "else",
  "patternProperties",
  "allOf",
  "oneOf",
  "minProperties",
  "maxProperties",
  "propertyNames",
];
const withType = (s: Json): Json => (s.type === undefined ? { type: "object", ...s } : s);
const withProperties = (s: Json): Json => (s.type === "object" && s.properties === undefined ? { ...s, properties: {} } : s);

/** Every object node of a schema (through properties, items, anyOf, $defs). */
function objectNodes(s: unknown, out: Json[] = []): Json[] {
  if (Array.isArray(s)) s.forEach((x) => objectNodes(x, out));
  else if (s && typeof s === "object") {
    const o = s as Json;
    if (o.type === "object" || (Array.isArray(o.type) && o.type.includes("object"))) out.push(o);
    for (const [k, v] of Object.entries(o))
      if (k !== "enum" && k !== "required") objectNodes(k === "properties" || k === "$defs" ? Object.values(v as Json) : v, out);
  }
  return out;
}
const keywords = (s: unknown): string[] =>
  s && typeof s === "object"
    ? Object.entries(s as Json).flatMap(([k, v]) => [
        k,
        ...(k === "properties" || k === "$defs" ? Object.values(v as Json).flatMap(keywords) : keywords(v)),
      ])
    : [];

it("the corpus holds the captured listings and the synthetic shapes", () => {
  const by = (src: string) => CORPUS.filter((t) => t.source === src).length;
  expect(by("server-everything")).toBeGreaterThan(10);
  expect(by("server-filesystem")).toBeGreaterThan(10);
  expect(by("server-memory-like")).toBeGreaterThan(3);
  expect(JSON.stringify(CORPUS)).toContain('"$defs"');
});

describe("the corpus through AnthropicLLM", () => {
  it("names valid and unique, schemas passed through, every call mapped back to its tool", async () => {
    const tools = corpusSchemas();
    const script = (body: { tools?: readonly { name: string }[] }) => ({
      toolUses: body.tools!.map((t, i) => ({ id: `toolu_${i}`, name: t.name, input: {} })),
    });
    await using api = await FakeAnthropic.start([script]);
    const turn = await new AnthropicLLM({ apiKey: "k", baseURL: api.url, maxRetries: 0 }).complete(ask("x", { tools }));
    const sent = api.messageRequests[0]!.tools!;
    expect(sent.every((t) => WIRE_NAME.test(t.name))).toBe(true);
    expect(new Set(sent.map((t) => t.name)).size).toBe(tools.length);
    sent.forEach((t, i) => expect(t.input_schema).toEqual(withType(tools[i]!.parameters as Json)));
    expect(turn.toolCalls!.map((c) => c.name)).toEqual(tools.map((t) => t.name));
  });
});

describe.each(["responses", "chat"] as const)("the corpus through OpenAILLM (%s)", (api) => {
  const fnOf = (t: Json): Json => (api === "chat" ? (t.function as Json) : t);
  const script = (body: { tools?: readonly Json[] }) => ({
    functionCalls: body.tools!.map((t, i) => ({ callId: `call_${i}`, name: String(fnOf(t).name), arguments: {} })),
  });

  it("non-strict (the default): schemas as they are, properties added where missing, names mapped back", async () => {
    const tools = corpusSchemas();
    await using fake = await FakeOpenAI.start([script]);
    const turn = await new OpenAILLM({ apiKey: "k", baseURL: `${fake.url}/v1`, api, maxRetries: 0 }).complete(ask("x", { tools }));
    const sent = ((api === "chat" ? fake.chatRequests[0] : fake.responseRequests[0])!.tools ?? []).map(fnOf);
    expect(sent.every((t) => WIRE_NAME.test(String(t.name)) && t.strict === false)).toBe(true);
    sent.forEach((t, i) => expect(t.parameters).toEqual(withProperties(withType(tools[i]!.parameters as Json))));
    expect(turn.toolCalls!.map((c) => c.name)).toEqual(tools.map((t) => t.name));
  });

  it("strict: every object closed and fully required, no unsupported keyword, valid JSON Schema; no strict form sends that tool non-strict", async () => {
    const tools = corpusSchemas();
    await using fake = await FakeOpenAI.start([script]);
    await new OpenAILLM({ apiKey: "k", baseURL: `${fake.url}/v1`, api, strict: true, maxRetries: 0 }).complete(ask("x", { tools }));
    const sent = ((api === "chat" ? fake.chatRequests[0] : fake.responseRequests[0])!.tools ?? []).map(fnOf);
    const ajv = new Ajv2020({ strict: false, logger: false });
    const loose = sent.filter((t) => t.strict === false).map((t) => t.name);
    expect(loose.sort()).toEqual(["with_all_of", "with_map"]);
    for (const t of sent.filter((x) => x.strict === true)) {
      for (const node of objectNodes(t.parameters)) {
        expect(node.additionalProperties, `${t.name}`).toBe(false);
        expect([...(node.required as string[])].sort(), `${t.name}`).toEqual(Object.keys(node.properties as Json).sort());
      }
      expect(
        keywords(t.parameters).filter((k) => STRICT_UNSUPPORTED.includes(k)),
        `${t.name}`,
      ).toEqual([]);
      expect(() => ajv.compile(t.parameters as Json), `${t.name}`).not.toThrow();
    }
  });
});
