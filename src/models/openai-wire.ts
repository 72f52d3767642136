/**
 * @module models/openai-wire
 * Requests and stream reading for the two OpenAI wire formats: the Responses
 * API (`POST /v1/responses`) and Chat Completions (`POST /v1/chat/completions`,
 * which vLLM, Ollama, LM Studio and OpenRouter also speak). Pure functions
 * over plain objects; `OpenAILLM` sends them through the SDK.
 */
import type { Message } from "../contracts/llm.js";
import type { ContentPart } from "../contracts/content-part.js";
import type { JsonSchema, ToolSchema } from "../tools/tool.js";
import { ModelError, modelFailure } from "./model.error.js";
import { strictSchema, stripNulls } from "./strict-schema.js";
import { systemPrompt } from "./system-prompt.js";
import type { ToolNames } from "./tool-names.js";
import type { TurnBuilder } from "./turn-builder.js";

type Json = Record<string, unknown>;

/** One tool as sent: its wire name, the schema sent, and whether it went strict. */
export interface WireTool {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  readonly strict: boolean;
  /** Widens a strict call's arguments back (drops the `null`s standing for absent properties). */
  readonly widen?: (args: Record<string, unknown>) => Record<string, unknown>;
}

/**
 * The schema OpenAI is sent for `t`: as it is (with `properties: {}` added to
 * an object schema without one, which the API otherwise rejects), or, when
 * `strict` is asked and the schema has a strict form, that form.
 */
export function openaiTool(t: ToolSchema, names: ToolNames, strict: boolean): WireTool {
  const base: JsonSchema = { ...(t.parameters.type === undefined ? { type: "object" } : {}), ...t.parameters };
  const loose: JsonSchema = base.type === "object" && base.properties === undefined ? { ...base, properties: {} } : base;
  const narrow = strict ? strictSchema(loose) : null;
  return narrow
    ? {
        name: names.wire(t.name),
        description: t.description,
        parameters: narrow,
        strict: true,
        widen: (a) => stripNulls(a, t.parameters) as Record<string, unknown>,
      }
    : { name: names.wire(t.name), description: t.description, parameters: loose, strict: false };
}

const dataUrl = (p: Extract<ContentPart, { type: "image" }>): string => `data:${p.mimeType};base64,${p.data}`;

/** The `tools` of a Responses API request. */
export function responsesTools(tools: readonly WireTool[]): Json[] {
  return tools.map((t) => ({ type: "function", name: t.name, description: t.description, parameters: t.parameters, strict: t.strict }));
}

/** A streamed Responses API request body; `tools` as `responsesTools()` made them. */
export function responsesBody(
  model: string,
  messages: readonly Message[],
  tools: readonly Json[],
  names: ToolNames,
  maxTokens?: number,
): Json {
  const input: Json[] = [];
  for (const m of messages) {
    if (m.role === "user") input.push({ role: "user", content: m.content });
    else if (m.role === "assistant") {
      if (m.content) input.push({ role: "assistant", content: m.content });
      for (const c of m.toolCalls ?? [])
        input.push({ type: "function_call", call_id: c.id, name: names.wire(c.name), arguments: JSON.stringify(c.arguments ?? {}) });
    } else if (m.role === "tool") {
      const output = m.parts
        ? m.parts.map((p) =>
            p.type === "text" ? { type: "input_text", text: p.text } : { type: "input_image", image_url: dataUrl(p), detail: "auto" },
          )
        : m.content;
      input.push({ type: "function_call_output", call_id: m.toolCallId ?? "", output });
    }
  }
  const body: Json = { model, stream: true };
  const instructions = systemPrompt(messages);
  if (instructions) body.instructions = instructions;
  body.input = input;
  if (tools.length) body.tools = tools;
  if (maxTokens !== undefined) body.max_output_tokens = maxTokens;
  return body;
}

/**
 * Read a Responses event stream into `out`; true when the response completed
 * (or stopped incomplete). Read to its end, not left at the last event:
 * leaving a raw SDK stream early aborts its request (a DOMException and
 * undici's abort path on every turn).
 */
export async function readResponses(
  stream: AsyncIterable<unknown>,
  out: TurnBuilder,
  names: ToolNames,
  tools: ReadonlyMap<string, WireTool>,
): Promise<boolean> {
  let refusal = "";
  let calls = 0;
  let finished = false;
  for await (const raw of stream) {
    const ev = raw as Json & { type: string };
    const item = ev.item as Json | undefined;
    switch (ev.type) {
      case "response.created":
        setModel(out, ev.response);
        break;
      case "response.output_item.added":
        if (item?.type === "function_call") out.toolStart(String(item.call_id), names.local(String(item.name)));
        break;
      case "response.output_text.delta":
        out.text(String(ev.delta ?? ""));
        break;
      case "response.refusal.delta":
        refusal += String(ev.delta ?? "");
        break;
      case "response.output_item.done":
        if (item?.type === "function_call") {
          calls++;
          out.toolCall(
            String(item.call_id),
            names.local(String(item.name)),
            String(item.arguments ?? ""),
            tools.get(String(item.name))?.widen,
          );
        }
        break;
      case "response.completed":
      case "response.incomplete":
        finished = finishResponse(ev.response as Json, out, refusal, calls);
        break;
      case "response.failed":
      case "error": {
        const e = (ev.type === "error" ? ev : ((ev.response as Json | undefined)?.error ?? {})) as Json;
        throw streamError(out, e);
      }
    }
  }
  return finished;
}

function streamError(out: TurnBuilder, e: Json): Error {
  // Shaped like the SDK's APIError (error.code, message), so toModelError classifies it.
  return Object.assign(new Error(String(e.message ?? "the response failed")), {
    error: { error: { message: e.message, code: e.code } },
    requestID: out.requestId,
    status: undefined,
  });
}

function setModel(out: TurnBuilder, response: unknown): void {
  const model = (response as Json | undefined)?.model;
  if (typeof model === "string" && model) out.model = model;
}

function finishResponse(response: Json, out: TurnBuilder, refusal: string, calls: number): boolean {
  setModel(out, response);
  const u = (response.usage ?? {}) as Json;
  out.usage("inputTokens", u.input_tokens);
  out.usage("outputTokens", u.output_tokens);
  out.usage("cacheReadInputTokens", (u.input_tokens_details as Json | undefined)?.cached_tokens);
  const reason = (response.incomplete_details as Json | null | undefined)?.reason;
  if (refusal || reason === "content_filter")
    throw modelFailure("model_refused", {
      provider: "openai",
      requestId: out.requestId,
      providerMessage: refusal || "incomplete: content_filter",
    });
  out.stopReason = calls
    ? "tool_use"
    : reason === "max_output_tokens"
      ? "max_tokens"
      : response.status === "completed"
        ? "end_turn"
        : "other";
  return true;
}

/** The `tools` of a Chat Completions request. */
export function chatTools(tools: readonly WireTool[]): Json[] {
  return tools.map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.parameters, strict: t.strict },
  }));
}

/**
 * A streamed Chat Completions request body; `tools` as `chatTools()` made
 * them. Images of tool results follow the tool messages as a user message
 * (tool messages are text-only there).
 */
export function chatBody(model: string, messages: readonly Message[], tools: readonly Json[], names: ToolNames, maxTokens?: number): Json {
  const out: Json[] = [];
  const instructions = systemPrompt(messages);
  if (instructions) out.push({ role: "system", content: instructions });
  let images: Json[] = [];
  const flush = (): void => {
    if (images.length) out.push({ role: "user", content: [{ type: "text", text: "Images returned by the tool calls above:" }, ...images] });
    images = [];
  };
  for (const m of messages) {
    if (m.role !== "tool") flush();
    if (m.role === "user") out.push({ role: "user", content: m.content });
    else if (m.role === "assistant") {
      const calls = (m.toolCalls ?? []).map((c) => ({
        id: c.id,
        type: "function",
        function: { name: names.wire(c.name), arguments: JSON.stringify(c.arguments ?? {}) },
      }));
      out.push({ role: "assistant", content: m.content || null, ...(calls.length ? { tool_calls: calls } : {}) });
    } else if (m.role === "tool") {
      out.push({ role: "tool", tool_call_id: m.toolCallId ?? "", content: m.content });
      for (const p of m.parts ?? []) if (p.type === "image") images.push({ type: "image_url", image_url: { url: dataUrl(p) } });
    }
  }
  flush();
  const body: Json = { model, stream: true, messages: out, stream_options: { include_usage: true } };
  if (tools.length) body.tools = tools;
  if (maxTokens !== undefined) body.max_tokens = maxTokens;
  return body;
}

/** Read a Chat Completions chunk stream into `out`; true when a `finish_reason` arrived. */
export async function readChat(
  stream: AsyncIterable<unknown>,
  out: TurnBuilder,
  names: ToolNames,
  tools: ReadonlyMap<string, WireTool>,
): Promise<boolean> {
  const calls = new Map<number, { id: string; name: string; args: string }>();
  let finish: string | null = null;
  let refusal = "";
  for await (const raw of stream) {
    const chunk = raw as Json;
    if (out.model === undefined) setModel(out, chunk);
    const u = chunk.usage as Json | null | undefined;
    if (u) {
      out.usage("inputTokens", u.prompt_tokens);
      out.usage("outputTokens", u.completion_tokens);
      out.usage("cacheReadInputTokens", (u.prompt_tokens_details as Json | undefined)?.cached_tokens);
    }
    const choice = ((chunk.choices ?? []) as Json[])[0];
    if (!choice) continue;
    const delta = (choice.delta ?? {}) as Json;
    if (typeof delta.content === "string") out.text(delta.content);
    if (typeof delta.refusal === "string") refusal += delta.refusal;
    for (const d of (delta.tool_calls ?? []) as Json[]) {
      const i = Number(d.index ?? 0);
      const fn = (d.function ?? {}) as Json;
      let c = calls.get(i);
      if (!c) {
        calls.set(i, (c = { id: String(d.id ?? `call_${i}`), name: String(fn.name ?? ""), args: "" }));
        out.toolStart(c.id, names.local(c.name));
      }
      if (typeof fn.arguments === "string") c.args += fn.arguments;
    }
    if (typeof choice.finish_reason === "string") finish = choice.finish_reason;
  }
  if (finish === null) return false;
  if (refusal || finish === "content_filter")
    throw modelFailure("model_refused", {
      provider: "openai",
      requestId: out.requestId,
      providerMessage: refusal || "finish_reason: content_filter",
    });
  for (const c of calls.values()) out.toolCall(c.id, names.local(c.name), c.args, tools.get(c.name)?.widen);
  out.stopReason = calls.size ? "tool_use" : finish === "length" ? "max_tokens" : finish === "stop" ? "end_turn" : "other";
  return true;
}

/** A stream that ended without its last event. */
export function truncated(out: TurnBuilder): ModelError {
  return new ModelError(
    { provider: "openai", requestId: out.requestId, providerMessage: "the stream ended before the response was complete" },
    "the model's answer was cut off",
    "model_response",
  );
}
