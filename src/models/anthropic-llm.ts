/**
 * @module models/anthropic-llm
 * `AnthropicLLM`: the Messages API through `@anthropic-ai/sdk`, streamed.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { LLM, LLMRequest, LLMTurn, Message, ModelStopReason } from "../contracts/llm.js";
import type { ContentPart } from "../contracts/content-part.js";
import type { JsonSchema, ToolSchema } from "../tools/tool.js";
import { anthropicSdk } from "./anthropic-sdk.js";
import { lazySdkClient, type LazySdkClient } from "./sdk-client.js";
import { checkOptions, opt } from "../options/option-checks.js";
import { modelFailure } from "./model.error.js";
import { checkAborted, toModelError } from "./provider-errors.js";
import { outputCap, requestModel } from "./request-defaults.js";
import { systemPrompt } from "./system-prompt.js";
import { ToolListMemo } from "./tool-list-memo.js";
import { ToolNames } from "./tool-names.js";
import { TurnBuilder } from "./turn-builder.js";

type Params = Anthropic.MessageCreateParamsStreaming;

/**
 * A streaming Messages API request body (`AnthropicLLM.params()`): `model`,
 * `max_tokens`, `stream: true`, then `system`, `tools`, `messages` and the
 * rest as the API documents them.
 */
export interface AnthropicRequestBody {
  readonly model: string;
  readonly max_tokens: number;
  readonly stream: true;
  readonly [key: string]: unknown;
}
type Block = Anthropic.ContentBlockParam;

/** Options of an `AnthropicLLM`. */
export interface AnthropicLLMOptions {
  /** Default: the SDK's (`ANTHROPIC_API_KEY`, or `ANTHROPIC_AUTH_TOKEN` as a bearer token). Never logged. */
  readonly apiKey?: string;
  /** Default: the SDK's (`ANTHROPIC_BASE_URL`, else the public API). */
  readonly baseURL?: string;
  /** `max_tokens` of every request (a request asking fewer, such as a server's sampling request, gets its own). Default 4096. */
  readonly maxTokens?: number;
  /**
   * The model of a request that names none: an MCP server's
   * `sampling/createMessage` (it sends only hints, which are not used). A
   * run's requests name the agent's `model`.
   */
  readonly model?: string;
  /**
   * Retries of a 408/409/429/5xx or a dropped connection, with the SDK's
   * backoff, honouring `retry-after` (the SDK waits as long as the header
   * says, even 120 s). Default 2 (three requests). 0 turns retrying off.
   */
  readonly maxRetries?: number;
  /** Mark the tool list and the system prompt as prompt-cache breakpoints (`cache_control: ephemeral`). Default true. */
  readonly promptCaching?: boolean;
}

const STOP: Record<string, ModelStopReason> = {
  end_turn: "end_turn",
  tool_use: "tool_use",
  max_tokens: "max_tokens",
  model_context_window_exceeded: "max_tokens",
  stop_sequence: "stop_sequence",
};

/** The options of `new AnthropicLLM(...)`, declared once. */
const OPTIONS = {
  apiKey: opt.string("an API key string"),
  baseURL: opt.string("a URL string"),
  maxTokens: opt.int(1),
  model: opt.string("a model name", true),
  maxRetries: opt.int(0),
  promptCaching: opt.boolean(),
} as const;

/**
 * A model on the Anthropic Messages API. `complete()` streams: text deltas
 * and tool-call starts reach `request.onEvent` as they arrive; the turn has
 * the text, the tool calls (JSON input parsed), the stop reason and usage
 * (`inputTokens`, `outputTokens`, `cacheReadInputTokens`,
 * `cacheCreationInputTokens`). System messages become the `system` prompt;
 * tool schemas go out as they are (`input_schema`); tool names the API
 * refuses are mapped reversibly. Aborting `request.signal` aborts the HTTP
 * request and rejects with `Cancelled`.
 *
 * @throws OptionsError (constructor) for an unknown option or a value of the wrong kind, naming what is accepted.
 * @throws MissingPeerError (constructor) when `@anthropic-ai/sdk` is not installed.
 * complete() rejects with `ModelError` (`code` `model_auth`,
 * `model_context_too_long`, `model_refused` for stop reason `refusal`, ...) or
 * its subclass `ModelRateLimitError`, each with the API's message and request id.
 */
export class AnthropicLLM implements LLM {
  readonly maxTokens: number;
  readonly promptCaching: boolean;
  /** The model of a request that names none (the `model` option). */
  readonly model: string | undefined;
  /** The SDK client, made on the first request (the SDK is imported then). */
  readonly #sdkClient: LazySdkClient<Anthropic>;

  constructor(options: AnthropicLLMOptions = {}) {
    checkOptions(options, "AnthropicLLM", OPTIONS);
    anthropicSdk.check();
    this.maxTokens = options.maxTokens ?? 4096;
    this.promptCaching = options.promptCaching ?? true;
    this.model = options.model;
    this.#sdkClient = lazySdkClient(anthropicSdk, options, (sdk, given) => new sdk.Anthropic(given));
  }

  /** The request's tools as the Messages API takes them (the last one with the cache breakpoint), made once per tool list. */
  readonly #tools = new ToolListMemo((list) => {
    const names = new ToolNames(list.map((t) => t.name));
    const cache = this.promptCaching ? { cache_control: { type: "ephemeral" as const } } : {};
    const tools = list.map((t, i) => ({ ...anthropicTool(t, names), ...(i === list.length - 1 ? cache : {}) }));
    return { names, tools };
  });

  /**
   * The streaming request `complete()` sends for `request` (exposed for tests
   * and for logging a request without sending it): the Messages API body as
   * plain JSON. Typed without the SDK's types, so `arc-agentkit/models`
   * compiles for a user who installed only `openai`.
   */
  params(request: LLMRequest): AnthropicRequestBody {
    return this.#params(request, this.#tools.get(request.tools)) as unknown as AnthropicRequestBody;
  }

  #params(request: LLMRequest, { names, tools }: { names: ToolNames; tools: Anthropic.Tool[] }): Params {
    const system = systemPrompt(request.messages);
    // Assigned, not spread (the same keys in the same order): this runs on every turn.
    // `messages` is set last, so the body keeps its key order.
    const params = {
      model: requestModel("AnthropicLLM", request, this.model),
      max_tokens: outputCap(this.maxTokens, request)!,
      stream: true,
    } as Params;
    if (system) {
      const block: Anthropic.TextBlockParam = { type: "text", text: system };
      if (this.promptCaching) block.cache_control = { type: "ephemeral" };
      params.system = [block];
    }
    if (tools.length) params.tools = tools;
    params.messages = anthropicMessages(request.messages, names);
    return params;
  }

  /** Sends `request` to the Messages API, streaming, and answers the turn. */
  async complete(request: LLMRequest): Promise<LLMTurn> {
    // No check of the signal here: the SDK checks it before sending, and its
    // abort error becomes Cancelled below, as one mid-request does.
    const tools = this.#tools.get(request.tools);
    const names = tools.names;
    const out = new TurnBuilder("anthropic", request);
    try {
      const client = this.#sdkClient.current ?? (await this.#sdkClient.get());
      const { data: stream, request_id } = await client.messages
        .create(this.#params(request, tools), request.signal ? { signal: request.signal } : undefined)
        .withResponse();
      out.requestId = request_id ?? undefined;
      // The stream is read to its end, not left at `message_stop`: leaving a
      // raw SDK stream early aborts its request, which costs a DOMException
      // and undici's abort path on every turn (~6 % of a turn's CPU, measured).
      // The loop is here, not in an async helper: one promise and its
      // microtask hops less per turn.
      const read = new StreamReader(out, names);
      for await (const ev of stream) read.event(ev);
      if (!read.stopped) {
        // A raw stream just stops iterating on abort, without an error.
        checkAborted(request.signal);
        throw toModelError("anthropic", { message: "the stream ended before message_stop", requestID: out.requestId });
      }
    } catch (err) {
      throw toModelError("anthropic", err, request.signal);
    }
    return out.turn();
  }
}

/** What one turn's stream events make of `out`: `event()` for each, in order; `stopped` once `message_stop` arrived. */
class StreamReader {
  /** The tool calls being streamed, by content block index (made at the first one: most turns have none). */
  #tools: Map<number, { id: string; name: string; json: string; input: unknown }> | undefined;
  #raw: string | null = null;
  stopped = false;

  constructor(
    private readonly out: TurnBuilder,
    private readonly names: ToolNames,
  ) {}

  event(ev: Anthropic.RawMessageStreamEvent): void {
    const out = this.out;
    switch (ev.type) {
      case "message_start":
        out.model = ev.message.model;
        usage(out, ev.message.usage);
        break;
      case "content_block_start":
        if (ev.content_block.type === "tool_use") {
          const b = ev.content_block;
          const name = this.names.local(b.name);
          (this.#tools ??= new Map()).set(ev.index, { id: b.id, name, json: "", input: b.input });
          out.toolStart(b.id, name);
        } else if (ev.content_block.type === "text") out.text(ev.content_block.text);
        break;
      case "content_block_delta":
        if (ev.delta.type === "text_delta") out.text(ev.delta.text);
        else if (ev.delta.type === "input_json_delta") this.#tools!.get(ev.index)!.json += ev.delta.partial_json;
        break;
      case "content_block_stop": {
        const t = this.#tools?.get(ev.index);
        if (t) out.toolCall(t.id, t.name, t.json || JSON.stringify(t.input ?? {}));
        break;
      }
      case "message_delta":
        this.#raw = ev.delta.stop_reason;
        usage(out, ev.usage);
        break;
      case "message_stop": {
        const raw = this.#raw;
        if (raw === "refusal")
          throw modelFailure("model_refused", {
            provider: "anthropic",
            requestId: out.requestId,
            providerMessage: out.content || "stop_reason: refusal",
          });
        out.stopReason = raw ? (STOP[raw] ?? "other") : undefined;
        this.stopped = true;
        break;
      }
    }
  }
}

function usage(out: TurnBuilder, u: Partial<Anthropic.Usage> | Partial<Anthropic.MessageDeltaUsage> | null | undefined): void {
  if (!u) return;
  out.usage("inputTokens", u.input_tokens);
  out.usage("outputTokens", u.output_tokens);
  out.usage("cacheReadInputTokens", u.cache_read_input_tokens);
  out.usage("cacheCreationInputTokens", u.cache_creation_input_tokens);
}

/** A tool as the Messages API takes it: the schema passed through, `type: "object"` added when absent. */
function anthropicTool(t: ToolSchema, names: ToolNames): Anthropic.Tool {
  const schema: JsonSchema = t.parameters.type === undefined ? { type: "object", ...t.parameters } : t.parameters;
  return {
    name: names.wire(t.name),
    ...(t.description ? { description: t.description } : {}),
    input_schema: schema as Anthropic.Tool.InputSchema,
  };
}

function resultContent(m: Message): string | Anthropic.ToolResultBlockParam["content"] {
  if (!m.parts) return m.content;
  return m.parts
    .filter((p: ContentPart) => p.type !== "text" || p.text !== "")
    .map((p) =>
      p.type === "text"
        ? { type: "text" as const, text: p.text }
        : { type: "image" as const, source: { type: "base64" as const, media_type: p.mimeType as "image/png", data: p.data } },
    );
}

/** The conversation as Messages API turns: tool results merged into one user turn, system messages left out (they go to `system`). */
function anthropicMessages(messages: readonly Message[], names: ToolNames): Anthropic.MessageParam[] {
  const out: Anthropic.MessageParam[] = [];
  let results: Block[] | null = null;
  for (const m of messages) {
    if (m.role === "tool") {
      if (!results) out.push({ role: "user", content: (results = []) });
      results.push({
        type: "tool_result",
        tool_use_id: m.toolCallId ?? "",
        content: resultContent(m),
        ...(m.content.startsWith("ERROR: ") ? { is_error: true } : {}),
      });
      continue;
    }
    results = null;
    if (m.role === "user") out.push({ role: "user", content: m.content });
    else if (m.role === "assistant") {
      const blocks: Block[] = m.content ? [{ type: "text", text: m.content }] : [];
      for (const c of m.toolCalls ?? []) blocks.push({ type: "tool_use", id: c.id, name: names.wire(c.name), input: c.arguments ?? {} });
      if (blocks.length) out.push({ role: "assistant", content: blocks });
    }
  }
  return out;
}
