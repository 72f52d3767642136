/**
 * @module models/openai-llm
 * `OpenAILLM`: the Responses API (default) or Chat Completions through the
 * `openai` SDK, streamed.
 */
import type OpenAI from "openai";
import type { LLM, LLMRequest, LLMTurn } from "../contracts/llm.js";
import { OptionsError } from "../errors/options.error.js";
import { checkOptions, opt } from "../options/option-checks.js";
import { openaiSdk } from "./openai-sdk.js";
import { lazySdkClient, type LazySdkClient } from "./sdk-client.js";
import {
  chatBody,
  chatTools,
  openaiTool,
  readChat,
  readResponses,
  responsesBody,
  responsesTools,
  truncated,
  type WireTool,
} from "./openai-wire.js";
import { checkAborted, toModelError } from "./provider-errors.js";
import { outputCap, requestModel } from "./request-defaults.js";
import { ToolListMemo } from "./tool-list-memo.js";
import { ToolNames } from "./tool-names.js";
import { TurnBuilder } from "./turn-builder.js";

/** Options of an `OpenAILLM`. */
export interface OpenAILLMOptions {
  /**
   * Default: the SDK's (`OPENAI_API_KEY`). A local server that needs none
   * still needs a value here (any string). Never logged.
   */
  readonly apiKey?: string;
  /** Default: the SDK's (`OPENAI_BASE_URL`, else the public API). Include the `/v1`, e.g. `http://127.0.0.1:8000/v1`. */
  readonly baseURL?: string;
  /** `"responses"` (default): the Responses API. `"chat"`: Chat Completions, for vLLM, Ollama, LM Studio, OpenRouter and the like. */
  readonly api?: "responses" | "chat";
  /**
   * Retries of a 408/409/429/5xx or a dropped connection, with the SDK's
   * backoff, honouring `retry-after` up to 60 s (longer values are ignored
   * by the SDK, which then backs off on its own). Default 2. 0 turns it off.
   */
  readonly maxRetries?: number;
  /**
   * The output token limit (`max_output_tokens` / `max_tokens`); a request asking fewer, such as a server's sampling
   * request, gets its own. Default: the server's.
   */
  readonly maxTokens?: number;
  /**
   * The model of a request that names none: an MCP server's
   * `sampling/createMessage` (it sends only hints, which are not used). A
   * run's requests name the agent's `model`.
   */
  readonly model?: string;
  /**
   * Send tool schemas in OpenAI's strict form (every property required,
   * optional ones nullable, `additionalProperties: false`, unsupported
   * keywords dropped); a schema with no strict form goes non-strict. The
   * `null`s the model sends for absent properties are removed before the tool
   * runs. Default false: schemas go as they are.
   */
  readonly strict?: boolean;
}

/** The options of `new OpenAILLM(...)`, declared once. */
const OPTIONS = {
  apiKey: opt.string("an API key string"),
  baseURL: opt.string("a URL string"),
  api: opt.oneOf(["responses", "chat"] as const, "responses"),
  maxRetries: opt.int(0),
  maxTokens: opt.int(1),
  model: opt.string("a model name", true),
  strict: opt.boolean(),
} as const;

/**
 * A model on an OpenAI-compatible API. `complete()` streams: text deltas and
 * tool-call starts reach `request.onEvent` as they arrive; the turn has the
 * text, the function calls (arguments parsed), the stop reason and usage
 * (`inputTokens` — cached ones included, as OpenAI counts them —
 * `outputTokens`, `cacheReadInputTokens`). System messages become
 * `instructions` (Responses) or the first system message (chat). Aborting
 * `request.signal` aborts the HTTP request and rejects with `Cancelled`.
 *
 * @throws OptionsError (constructor) for an unknown option or a value of the wrong kind, naming what is accepted.
 * @throws MissingPeerError (constructor) when `openai` is not installed;
 * OptionsError for a bad option or no API key. complete() rejects with
 * `ModelError` (`code` `model_auth`, `model_context_too_long`, `model_refused`,
 * ...) or its subclass `ModelRateLimitError`, each with the API's message and request id.
 */
export class OpenAILLM implements LLM {
  readonly api: "responses" | "chat";
  readonly strict: boolean;
  readonly maxTokens: number | undefined;
  /** The model of a request that names none (the `model` option). */
  readonly model: string | undefined;
  /** The SDK client, made on the first request (the SDK is imported then). */
  readonly #sdkClient: LazySdkClient<OpenAI>;

  constructor(options: OpenAILLMOptions = {}) {
    checkOptions(options, "OpenAILLM", OPTIONS);
    openaiSdk.check();
    // The SDK's own constructor refuses a missing key; it is made on the first
    // request, so the same check happens here, where the caller can act on it.
    if (options.apiKey === undefined && !process.env["OPENAI_API_KEY"]) {
      throw new OptionsError(
        "OpenAILLM",
        "apiKey",
        "OpenAILLM: no API key: pass apiKey or set OPENAI_API_KEY (a local server that needs none takes any string)",
      );
    }
    this.api = options.api ?? "responses";
    this.strict = options.strict ?? false;
    this.maxTokens = options.maxTokens;
    this.model = options.model;
    this.#sdkClient = lazySdkClient(openaiSdk, options, (sdk, given) => new sdk.OpenAI(given));
  }

  /** The request's tools as this provider sends them: made once per tool list (a loop sends the same list every turn). */
  readonly #tools = new ToolListMemo((list) => {
    const names = new ToolNames(list.map((t) => t.name));
    const tools = list.map((t) => openaiTool(t, names, this.strict));
    return {
      names,
      tools,
      byWire: new Map(tools.map((t) => [t.name, t])),
      sent: this.api === "chat" ? chatTools(tools) : responsesTools(tools),
    };
  });

  /** The tools as sent, and the request body `complete()` sends for `request` (exposed for tests and logging). */
  body(request: LLMRequest): { tools: readonly WireTool[]; body: Record<string, unknown> } {
    const { tools, body } = this.#request(request);
    return { tools, body };
  }

  #request(request: LLMRequest) {
    const t = this.#tools.get(request.tools);
    const make = this.api === "chat" ? chatBody : responsesBody;
    return {
      names: t.names,
      tools: t.tools,
      byWire: t.byWire,
      body: make(requestModel("OpenAILLM", request, this.model), request.messages, t.sent, t.names, outputCap(this.maxTokens, request)),
    };
  }

  /** Sends `request` to the OpenAI API (Chat Completions or Responses, as configured), streaming, and answers the turn. */
  async complete(request: LLMRequest): Promise<LLMTurn> {
    // No check of the signal here: the SDK checks it before sending, and its
    // abort error becomes Cancelled below, as one mid-request does.
    const { names, byWire, body } = this.#request(request);
    const out = new TurnBuilder("openai", request);
    try {
      const opts = request.signal ? { signal: request.signal } : undefined;
      const client = this.#sdkClient.current ?? (await this.#sdkClient.get());
      const sent =
        this.api === "chat"
          ? client.chat.completions.create(body as unknown as OpenAI.Chat.ChatCompletionCreateParamsStreaming, opts)
          : client.responses.create(body as unknown as OpenAI.Responses.ResponseCreateParamsStreaming, opts);
      const { data: stream, request_id } = await sent.withResponse();
      out.requestId = request_id ?? undefined;
      const read = this.api === "chat" ? readChat : readResponses;
      if (!(await read(stream as AsyncIterable<unknown>, out, names, byWire))) {
        // A raw stream just stops iterating on abort, without an error.
        checkAborted(request.signal);
        throw truncated(out);
      }
    } catch (err) {
      throw toModelError("openai", err, request.signal);
    }
    return out.turn();
  }
}
