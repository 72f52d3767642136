/**
 * @module test/models/support
 * Shared bits of the provider tests: the golden schema corpus, an event
 * recorder, and small request factories.
 */
import { readFileSync } from "node:fs";
import type { LLMRequest, LLMStreamEvent, Message, ToolSchema } from "arc-agentkit";

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
export const corpusSchemas = (): ToolSchema[] => CORPUS.map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema }));

/** A request with one user message (and a system prompt when given). */
export function ask(text: string, extra: Partial<LLMRequest> & { system?: string } = {}): LLMRequest {
  const messages: Message[] = [...(extra.system ? [{ role: "system" as const, content: extra.system }] : []), { role: "user", content: text }];
  return { model: "test-model", messages, tools: [], ...extra };
}

/** Records stream events with the time each arrived. */
export function recorder(): { events: (LLMStreamEvent & { at: number })[]; onEvent: (e: LLMStreamEvent) => void } {
  const events: (LLMStreamEvent & { at: number })[] = [];
  return { events, onEvent: (e) => events.push({ ...e, at: performance.now() }) };
}

/** A tool named `name` taking `{ path: string }`. */
export const pathTool = (name = "read_file"): ToolSchema => ({ name, description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } });
