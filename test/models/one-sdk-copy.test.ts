/**
 * @module test/models/one-sdk-copy.test
 * The providers load their SDK by `import()`: in an ESM app that imports the
 * SDK itself, agentkit's requests go through that same module (its ESM
 * build), not a second CommonJS copy loaded beside it. Shown in a child
 * process against the fake APIs: after a turn through each provider, the
 * SDK's CommonJS entry (`index.js`, `client.js`) is not in `require.cache`, and the client class the
 * app imports saw the request.
 */
import { describe, expect, it } from "vitest";
import { FakeAnthropic } from "../cli/kit/fake-anthropic.js";
import { FakeOpenAI } from "../cli/kit/fake-openai.js";
import { runNode } from "../helpers/procs.js";
import { ROOT } from "../mcp-client/support.js";

const PROBE = `
import { createRequire } from "node:module";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { AnthropicLLM, OpenAILLM } from "arc-agentkit/models";
const seen = { anthropic: 0, openai: 0 };
const count = (cls, key) => { const orig = cls.prototype.makeRequest; cls.prototype.makeRequest = function (...a) { seen[key]++; return orig.apply(this, a); }; };
count(Anthropic, "anthropic");
count(OpenAI, "openai");
const [a, o] = process.argv.slice(-2);
const ask = { model: "m", messages: [{ role: "user", content: "hi" }], tools: [] };
const ta = await new AnthropicLLM({ apiKey: "k", baseURL: a, maxRetries: 0 }).complete(ask);
const to = await new OpenAILLM({ apiKey: "k", baseURL: o + "/v1", maxRetries: 0 }).complete(ask);
const cjs = Object.keys(createRequire(import.meta.url).cache).filter((k) => /node_modules[\\\\/](@anthropic-ai[\\\\/]sdk|openai)[\\\\/](index|client)\\.js$/.test(k));
console.log(JSON.stringify({ texts: [ta.content, to.content], seen, cjs }));`;

describe("one SDK copy", () => {
  it("AnthropicLLM and OpenAILLM send through the SDK module the app imports; no CommonJS copy is loaded", async () => {
    await using anthropic = await FakeAnthropic.start([{ text: "from anthropic" }]);
    await using openai = await FakeOpenAI.start([{ text: "from openai" }]);
    const run = await runNode(["--input-type=module", "-e", PROBE, anthropic.url, openai.url], { cwd: ROOT, ms: 30_000 });
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout.trim().split("\n").pop()!) as { texts: string[]; seen: Record<string, number>; cjs: string[] };
    expect(out.texts).toEqual(["from anthropic", "from openai"]);
    expect(out.seen).toEqual({ anthropic: 1, openai: 1 });
    expect(out.cjs).toEqual([]);
  });
});
