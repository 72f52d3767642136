/**
 * @module test/cli/kit/fake-openai
 * A scripted fake of the OpenAI Responses API (`POST /v1/responses`, SSE) for
 * the real `codex` binary, on 127.0.0.1:0. Each request consumes the next
 * scripted turn; past the end it answers HTTP 400 naming the fake. MCP tools
 * reach Codex as a `namespace` tool, so a call to one is scripted as
 * `{ namespace: "mcp__engine", name: "run_check" }` (a flat name gets
 * "unsupported call").
 *
 * It also answers `POST /v1/chat/completions` (streamed chunks, usage in a
 * last chunk without choices) from the same script, for `OpenAILLM({ api:
 * "chat" })`. Responses events follow the API's sequence (created,
 * in_progress, output_item.added, content_part.added, output_text.delta...,
 * output_text.done, content_part.done, output_item.done; for a function call
 * function_call_arguments.delta/done; then completed or incomplete), each with
 * a `sequence_number`; every answer has an `x-request-id` header.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { parseBody, ScriptedFake, sse } from "./http-util.js";

/** One scripted function call. */
export interface FakeFunctionCall {
  /** `mcp__<server>` for an MCP tool; absent for a built-in such as `exec_command`. */
  readonly namespace?: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  readonly callId?: string;
}

/** One scripted model turn. */
export interface OpenAITurn {
  /** Text the model says; an array is sent as one delta per element. */
  readonly text?: string | readonly string[];
  readonly functionCalls?: readonly FakeFunctionCall[];
  readonly usage?: { readonly input_tokens: number; readonly output_tokens: number; readonly cached_tokens?: number };
  /** A refusal instead of text. */
  readonly refusal?: string;
  /** End `incomplete` with this reason (`max_output_tokens`, `content_filter`); chat: `length` / `content_filter`. */
  readonly incomplete?: "max_output_tokens" | "content_filter";
  /** Never answer (the request hangs until the CLI gives up or the fake closes). */
  readonly hang?: boolean;
  /** Stream up to the first text delta, then stall (until the client hangs up or the fake closes). */
  readonly stallAfterFirstDelta?: boolean;
  /** Answer with an HTTP error instead, with extra `headers` (e.g. `retry-after`) and the API's `code`/`type`. */
  readonly error?: {
    readonly status: number;
    readonly message: string;
    readonly code?: string;
    readonly type?: string;
    readonly headers?: Readonly<Record<string, string>>;
  };
}

/** A turn, or a function of the request body choosing one. */
export type OpenAIStep = OpenAITurn | ((body: ResponsesRequest & ChatRequest) => OpenAITurn);

/** The parts of a Responses request the tests read. */
export interface ResponsesRequest {
  readonly model: string;
  readonly tools?: readonly Record<string, unknown>[];
  readonly input: readonly Record<string, unknown>[];
  readonly instructions?: string;
}

/** The parts of a Chat Completions request the tests read. */
export interface ChatRequest {
  readonly model: string;
  readonly tools?: readonly Record<string, unknown>[];
  readonly messages: readonly Record<string, unknown>[];
}

let ids = 0;

/** The scripted fake. `await using api = await FakeOpenAI.start([...])`; Codex's `base_url` is `${api.url}/v1`. */
export class FakeOpenAI extends ScriptedFake {
  private constructor(
    server: Server,
    url: string,
    private readonly script: readonly OpenAIStep[],
  ) {
    super(server, url);
  }

  static async start(script: readonly OpenAIStep[]): Promise<FakeOpenAI> {
    return ScriptedFake.listening((server, url) => new FakeOpenAI(server, url, script));
  }

  /** The bodies of the `POST /v1/responses` requests, in order. */
  get responseRequests(): ResponsesRequest[] {
    return this.requests.filter((r) => r.method === "POST" && r.path.startsWith("/v1/responses")).map((r) => r.body as ResponsesRequest);
  }

  /** The bodies of the `POST /v1/chat/completions` requests, in order. */
  get chatRequests(): ChatRequest[] {
    return this.requests.filter((r) => r.method === "POST" && r.path.startsWith("/v1/chat/completions")).map((r) => r.body as ChatRequest);
  }

  /** Every `function_call_output` item Codex sent back, as the text of its output. */
  functionOutputs(): { callId: string; text: string }[] {
    const seen = new Map<string, string>();
    for (const body of this.responseRequests) {
      for (const item of body.input ?? []) {
        if (item.type !== "function_call_output") continue;
        const out = item.output;
        const text =
          typeof out === "string"
            ? out
            : Array.isArray(out)
              ? (out as Record<string, unknown>[]).map((p) => String(p.text ?? "")).join("\n")
              : JSON.stringify(out);
        seen.set(String(item.call_id), text);
      }
    }
    return [...seen].map(([callId, text]) => ({ callId, text }));
  }

  protected answer(req: IncomingMessage, res: ServerResponse, path: string, text: string): void {
    const chat = path.startsWith("/v1/chat/completions");
    if (req.method !== "POST" || !(path.startsWith("/v1/responses") || chat)) {
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: "fake: not found", type: "not_found" } }));
      return;
    }
    const body = parseBody(text) as ResponsesRequest & ChatRequest;
    const step = this.script[this.next++];
    const turn: OpenAITurn =
      step === undefined
        ? { error: { status: 400, message: `fake openai: script exhausted after ${this.script.length} turn(s)` } }
        : typeof step === "function"
          ? step(body)
          : step;
    const requestId = `req_fake_${++ids}`;
    this.watchHangUp(res, requestId);
    if (turn.hang) return;
    if (turn.error) {
      const e = turn.error;
      res
        .writeHead(e.status, { "content-type": "application/json", "x-request-id": requestId, ...(e.headers ?? {}) })
        .end(JSON.stringify({ error: { message: e.message, type: e.type ?? "invalid_request_error", code: e.code ?? null, param: null } }));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "x-request-id": requestId });
    if (chat) this.chat(res, body, turn);
    else this.responses(res, body, turn);
  }

  private responses(res: ServerResponse, body: ResponsesRequest, turn: OpenAITurn): void {
    let seq = 0;
    const send = (type: string, data: Record<string, unknown>): void => sse(res, type, { type, sequence_number: seq++, ...data });
    const items: Record<string, unknown>[] = [];
    for (const c of turn.functionCalls ?? []) {
      const n = ++ids;
      items.push({
        type: "function_call",
        id: `fc_fake_${n}`,
        call_id: c.callId ?? `call_fake_${n}`,
        ...(c.namespace ? { namespace: c.namespace } : {}),
        name: c.name,
        arguments: JSON.stringify(c.arguments),
        status: "completed",
      });
    }
    const pieces = turn.text === undefined ? undefined : typeof turn.text === "string" ? [turn.text] : turn.text;
    if (pieces !== undefined || turn.refusal !== undefined) {
      const part =
        turn.refusal !== undefined
          ? { type: "refusal", refusal: turn.refusal }
          : { type: "output_text", text: pieces!.join(""), annotations: [] };
      items.push({ type: "message", id: `msg_fake_${++ids}`, role: "assistant", status: "completed", content: [part] });
    }
    const id = `resp_fake_${++ids}`;
    const u = turn.usage ?? { input_tokens: 10, output_tokens: 5 };
    const usage = {
      input_tokens: u.input_tokens,
      input_tokens_details: { cached_tokens: u.cached_tokens ?? 0 },
      output_tokens: u.output_tokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: u.input_tokens + u.output_tokens,
    };
    const shell = { id, object: "response", model: body.model, output: [] };
    send("response.created", { response: { ...shell, status: "in_progress" } });
    send("response.in_progress", { response: { ...shell, status: "in_progress" } });
    for (const [i, item] of items.entries()) {
      if (item.type === "message") {
        send("response.output_item.added", { output_index: i, item: { ...item, status: "in_progress", content: [] } });
        const part = (item.content as Record<string, unknown>[])[0]!;
        const base = { item_id: item.id, output_index: i, content_index: 0 };
        send("response.content_part.added", {
          ...base,
          part: part.type === "refusal" ? { type: "refusal", refusal: "" } : { type: "output_text", text: "", annotations: [] },
        });
        if (part.type === "refusal") {
          send("response.refusal.delta", { ...base, delta: turn.refusal });
          send("response.refusal.done", { ...base, refusal: turn.refusal });
        } else {
          for (const delta of pieces ?? []) {
            send("response.output_text.delta", { ...base, delta, logprobs: [] });
            if (turn.stallAfterFirstDelta) return; // the client hangs up; `hungUp` records it
          }
          send("response.output_text.done", { ...base, text: part.text, logprobs: [] });
        }
        send("response.content_part.done", { ...base, part });
      } else {
        send("response.output_item.added", { output_index: i, item: { ...item, arguments: "", status: "in_progress" } });
        send("response.function_call_arguments.delta", { item_id: item.id, output_index: i, delta: item.arguments });
        send("response.function_call_arguments.done", { item_id: item.id, output_index: i, arguments: item.arguments });
      }
      send("response.output_item.done", { output_index: i, item });
    }
    const done = turn.incomplete
      ? { ...shell, status: "incomplete", incomplete_details: { reason: turn.incomplete }, output: items, usage }
      : { ...shell, status: "completed", output: items, usage };
    send(turn.incomplete ? "response.incomplete" : "response.completed", { response: done });
    res.end();
  }

  private chat(res: ServerResponse, body: ChatRequest, turn: OpenAITurn): void {
    const id = `chatcmpl-fake${++ids}`;
    const chunk = (delta: Record<string, unknown>, finish: string | null = null): void => {
      res.write(
        `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model: body.model, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] })}\n\n`,
      );
    };
    chunk({ role: "assistant", content: "" });
    const pieces = turn.text === undefined ? [] : typeof turn.text === "string" ? [turn.text] : turn.text;
    for (const content of pieces) {
      chunk({ content });
      if (turn.stallAfterFirstDelta) return;
    }
    if (turn.refusal !== undefined) chunk({ refusal: turn.refusal });
    for (const [index, c] of (turn.functionCalls ?? []).entries()) {
      const args = JSON.stringify(c.arguments);
      chunk({ tool_calls: [{ index, id: c.callId ?? `call_fake_${++ids}`, type: "function", function: { name: c.name, arguments: "" } }] });
      chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, Math.floor(args.length / 2)) } }] });
      chunk({ tool_calls: [{ index, function: { arguments: args.slice(Math.floor(args.length / 2)) } }] });
    }
    const finish =
      turn.incomplete === "max_output_tokens"
        ? "length"
        : turn.incomplete === "content_filter"
          ? "content_filter"
          : turn.functionCalls?.length
            ? "tool_calls"
            : "stop";
    chunk({}, finish);
    const u = turn.usage ?? { input_tokens: 10, output_tokens: 5 };
    const usage = {
      prompt_tokens: u.input_tokens,
      completion_tokens: u.output_tokens,
      total_tokens: u.input_tokens + u.output_tokens,
      prompt_tokens_details: { cached_tokens: u.cached_tokens ?? 0 },
    };
    res.write(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model: body.model, choices: [], usage })}\n\ndata: [DONE]\n\n`,
    );
    res.end();
  }
}
