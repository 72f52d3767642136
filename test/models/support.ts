/**
 * @module test/models/support
 * Shared bits of the provider tests: the golden schema corpus, an event
 * recorder, small request factories, and the stream checks every provider
 * passes alike (turns read to the end, abort mid-stream).
 */
import { readFileSync } from "node:fs";
import { expect, vi } from "vitest";
import { Cancelled, type LLM, type LLMRequest, type Message, type ToolSchema } from "arc-agentkit";

/** One streamed event, as a provider hands it to `onEvent`. */
type LLMStreamEvent = Parameters<NonNullable<LLMRequest["onEvent"]>>[0];

/** One tool of the corpus, as an MCP listing has it. */
export interface CorpusTool {
  readonly source: string;
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
}

function load(file: string): CorpusTool[] {
  const doc = JSON.parse(readFileSync(new URL(`../fixtures/schemas/${file}`, import.meta.url), "utf8")) as Record<string, unknown>;
  return Object.entries(doc)
    .filter(([k]) => !k.startsWith("_"))
    .flatMap(([source, tools]) => (tools as Omit<CorpusTool, "source">[]).map((t) => ({ source, ...t })));
}

/** Every tool of the golden corpus: captured (server-everything, server-filesystem) and synthetic (server-memory-like, edge cases). */
export const CORPUS: readonly CorpusTool[] = [...load("captured-tools.json"), ...load("synthetic-tools.json")];

/** The corpus as the `ToolSchema`s a request carries. */
export const corpusSchemas = (): ToolSchema[] =>
  CORPUS.map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema }));

/** A request with one user message (and a system prompt when given). */
export function ask(text: string, extra: Partial<LLMRequest> & { system?: string } = {}): LLMRequest {
  const messages: Message[] = [
    ...(extra.system ? [{ role: "system" as const, content: extra.system }] : []),
    { role: "user", content: text },
  ];
  return { model: "test-model", messages, tools: [], ...extra };
}

/** Records stream events with the time each arrived. */
export function recorder(): { events: (LLMStreamEvent & { at: number })[]; onEvent: (e: LLMStreamEvent) => void } {
  const events: (LLMStreamEvent & { at: number })[] = [];
  return { events, onEvent: (e) => events.push({ ...e, at: performance.now() }) };
}

/** A tool named `name` taking `{ path: string }`. */
export const pathTool = (name = "read_file"): ToolSchema => ({
  name,
  description: "Read a file",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
});

/**
 * Two turns over `model`, whose fake is scripted with a text turn "one" and
 * then a `read_file` tool call: each reads its stream to the end, so the SDK
 * aborts no request after the last event (a kept-alive connection stays usable).
 */
export async function expectTurnsReadToEnd(model: LLM): Promise<void> {
  const abort = vi.spyOn(AbortController.prototype, "abort");
  try {
    expect((await model.complete(ask("x", { tools: [pathTool()] }))).content).toBe("one");
    expect((await model.complete(ask("x", { tools: [pathTool()] }))).stopReason).toBe("tool_use");
    expect(abort).not.toHaveBeenCalled();
  } finally {
    abort.mockRestore();
  }
}

/** A signal aborted before `complete()`: it rejects with `Cancelled` (the reason kept) and `api` gets no model request. */
export async function expectAbortedBeforeStart(
  model: LLM,
  api: { readonly requests: readonly { readonly method: string }[] },
): Promise<void> {
  const controller = new AbortController();
  const why = new Cancelled("stopped before the turn");
  controller.abort(why);
  const err = await model.complete(ask("x", { signal: controller.signal })).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(Cancelled);
  expect((err as Cancelled).reason).toBe(why);
  expect(api.requests.filter((r) => r.method === "POST")).toHaveLength(0);
}

/** The turn `expectAbortMidStream` scripts: a first delta, then a stall only a hang-up ends. */
export const stalledTurn = (): { text: string[]; stallAfterFirstDelta: true } => ({
  text: ["first ", "never"],
  stallAfterFirstDelta: true,
});

/**
 * Abort from the first delta of `stalledTurn()`: `complete()` rejects with
 * `Cancelled` at once (no wait on the stalled stream) and the fake, `api`,
 * sees the connection close.
 */
export async function expectAbortMidStream(model: LLM, api: { readonly hungUp: readonly string[] }): Promise<void> {
  const controller = new AbortController();
  let abortedAt = 0;
  const onEvent = () => {
    abortedAt = performance.now();
    controller.abort();
  };
  const err = await model.complete(ask("x", { signal: controller.signal, onEvent })).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(Cancelled);
  expect(performance.now() - abortedAt).toBeLessThan(1000); // no wait on the stalled stream (a few ms when quiet; the bound is generous for a loaded 2-core CI, not a timing goal)
  await expect.poll(() => api.hungUp.length).toBe(1);
}
