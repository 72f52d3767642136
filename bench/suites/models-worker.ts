/**
 * @module bench/suites/models-worker
 * One process of benchmark 7 (`node models-worker.js <api url> <rounds>
 * <batch>`): the six contenders — one agent turn through each provider, and
 * the bare SDK streaming call with and without a signal — warmed up, then
 * `rounds` ABBA rounds of `batch` sequential turns per contender and
 * provider. Prints one JSON line: per contender, per round, its batches
 * (each turn's latency in ms and the batch's process CPU in µs).
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { Agent, ReActCognition, RunContext } from "arc-agentkit";
import { AnthropicLLM, OpenAILLM } from "arc-agentkit/models";
import { abba } from "../lib/abba.js";
import { sequential, type Caller } from "../lib/callers.js";
import { CONTENDERS, type ModelBatch, type WorkerResult } from "../lib/model-contenders.js";

/** What the model API answers every request with (see `servers/http-server.ts`). */
const EXPECTED = "Hello, world.";

function check(text: string): void {
  if (text !== EXPECTED) throw new Error(`models bench: unexpected answer ${JSON.stringify(text)}`);
}

/** A fresh signal per call when `signal` (as each run has its own), else none. */
const options = (signal: boolean): { signal: AbortSignal } | undefined => (signal ? { signal: new AbortController().signal } : undefined);

function bareAnthropic(url: string, signal: boolean): Caller {
  const client = new Anthropic({ apiKey: "bench", baseURL: url, maxRetries: 0 });
  return {
    async call() {
      let text = "";
      const stream = await client.messages.create(
        { model: "m", max_tokens: 64, stream: true, messages: [{ role: "user", content: "hi" }] },
        options(signal),
      );
      for await (const ev of stream) if (ev.type === "content_block_delta" && ev.delta.type === "text_delta") text += ev.delta.text;
      check(text);
    },
    close: async () => {},
  };
}

function bareOpenAI(url: string, signal: boolean): Caller {
  const client = new OpenAI({ apiKey: "bench", baseURL: `${url}/v1`, maxRetries: 0 });
  return {
    async call() {
      let text = "";
      const stream = await client.responses.create({ model: "m", stream: true, input: [{ role: "user", content: "hi" }] }, options(signal));
      for await (const ev of stream) if (ev.type === "response.output_text.delta") text += ev.delta;
      check(text);
    },
    close: async () => {},
  };
}

function agentCaller(llm: AnthropicLLM | OpenAILLM): Caller {
  const agent = new Agent({ name: "bench", model: "m", cognition: new ReActCognition({ tools: [] }) });
  return {
    async call() {
      const result = await agent.run("hi", new RunContext({ llm }));
      if (result.stopReason !== "complete") throw new Error(`models bench: run ended ${result.stopReason}: ${result.error?.message}`);
      check(result.output);
    },
    close: async () => {},
  };
}

async function timed(caller: Caller, n: number): Promise<ModelBatch> {
  const c0 = process.cpuUsage();
  const lat = await sequential(caller, n);
  const c = process.cpuUsage(c0);
  return { lat, cpuUs: c.user + c.system };
}

async function main(): Promise<void> {
  const [url, roundsArg, batchArg] = process.argv.slice(2);
  const rounds = Number(roundsArg);
  const batch = Number(batchArg);
  if (!url || !Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(batch) || batch < 1) {
    throw new Error(
      `models-worker: usage: models-worker.js <api url> <rounds >= 1> <batch >= 1>, got ${JSON.stringify(process.argv.slice(2))}`,
    );
  }
  const callers = new Map<string, Caller>([
    ["anthropic-agent", agentCaller(new AnthropicLLM({ apiKey: "bench", baseURL: url, maxRetries: 0, maxTokens: 64 }))],
    ["anthropic-bare", bareAnthropic(url, false)],
    ["anthropic-signal", bareAnthropic(url, true)],
    ["openai-agent", agentCaller(new OpenAILLM({ apiKey: "bench", baseURL: `${url}/v1`, maxRetries: 0 }))],
    ["openai-bare", bareOpenAI(url, false)],
    ["openai-signal", bareOpenAI(url, true)],
  ]);
  for (const c of callers.values()) await sequential(c, 100);
  const out: WorkerResult = {};
  for (const names of Object.values(CONTENDERS)) {
    const res = await abba(names, rounds, (k) => timed(callers.get(k)!, batch));
    for (const [k, v] of res) out[k] = v;
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`models-worker: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
