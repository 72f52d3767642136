/**
 * @module test/cli/kit/fake-anthropic
 * A scripted fake of the Anthropic Messages API (`POST /v1/messages`, SSE and
 * JSON) for the real `claude` binary, on 127.0.0.1:0. Each model request
 * consumes the next scripted turn; a request past the end of the script is
 * answered with an API error naming the fake, so a broken test fails loudly.
 * The SSE sequence is the API's (message_start, content_block_start, ping,
 * deltas — tool input JSON in two pieces — content_block_stop, message_delta,
 * message_stop); every answer carries a `request-id` header, and error bodies
 * carry `request_id` as the API's do. `AnthropicLLM`'s tests use it too.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { parseBody, ScriptedFake, sse } from "./http-util.js";

/** One scripted model turn. */
export interface AnthropicTurn {
  /** Text the model says (before any tool use); an array is sent as one `text_delta` per element. */
  readonly text?: string | readonly string[];
  /** Tool uses the model makes; ids default to `toolu_fake_<n>`. */
  readonly toolUses?: readonly { readonly id?: string; readonly name: string; readonly input: Record<string, unknown> }[];
  /** Token usage reported. Default input 10, output 5. */
  readonly usage?: {
    readonly input_tokens: number;
    readonly output_tokens: number;
    readonly cache_read_input_tokens?: number;
    readonly cache_creation_input_tokens?: number;
  };
  /** The `stop_reason` sent. Default `tool_use` with tool uses, else `end_turn`. */
  readonly stopReason?: string;
  /** Never answer (the request hangs until the CLI gives up or the fake closes). */
  readonly hang?: boolean;
  /** Stream up to the first text delta, then stall (until the client hangs up or the fake closes). */
  readonly stallAfterFirstDelta?: boolean;
  /** Answer with an HTTP error instead: `{ type: "error", error: { type, message }, request_id }`, with extra `headers` (e.g. `retry-after`). */
  readonly error?: {
    readonly status: number;
    readonly type: string;
    readonly message: string;
    readonly headers?: Readonly<Record<string, string>>;
  };
}

/** A turn, or a function of the request body choosing one. */
export type AnthropicStep = AnthropicTurn | ((body: AnthropicRequest) => AnthropicTurn);

/** The parts of a Messages request the tests read. */
export interface AnthropicRequest {
  readonly model: string;
  readonly stream?: boolean;
  readonly tools?: readonly { readonly name: string; readonly description?: string; readonly input_schema?: unknown }[];
  readonly messages: readonly { readonly role: string; readonly content: string | readonly Record<string, unknown>[] }[];
  readonly system?: unknown;
}

let ids = 0;

/** The scripted fake. `await using api = await FakeAnthropic.start([...])`. */
export class FakeAnthropic extends ScriptedFake {
  // `requests` has every request (including the CLI's `HEAD /` preflight); `url` is the base URL for `ANTHROPIC_BASE_URL`.
  private constructor(
    server: Server,
    url: string,
    private readonly script: readonly AnthropicStep[] | ((body: AnthropicRequest, index: number) => AnthropicTurn),
  ) {
    super(server, url);
  }

  /**
   * Start a fake answering `script`: one scripted turn per `POST
   * /v1/messages`, or a function answering every request (for runs whose
   * request order is not fixed, such as a background subagent).
   */
  static async start(
    script: readonly AnthropicStep[] | ((body: AnthropicRequest, index: number) => AnthropicTurn),
  ): Promise<FakeAnthropic> {
    return ScriptedFake.listening((server, url) => new FakeAnthropic(server, url, script));
  }

  /** The bodies of the `POST /v1/messages` requests, in order. */
  get messageRequests(): AnthropicRequest[] {
    return this.requests
      .filter((r) => r.method === "POST" && r.path.startsWith("/v1/messages") && !r.path.startsWith("/v1/messages/count_tokens"))
      .map((r) => r.body as AnthropicRequest);
  }

  /** Every `tool_result` block the CLI sent back, across all requests' last user messages. */
  toolResults(): Record<string, unknown>[] {
    const out: Record<string, unknown>[] = [];
    for (const body of this.messageRequests) {
      const last = body.messages[body.messages.length - 1];
      if (last && last.role === "user" && Array.isArray(last.content)) {
        for (const block of last.content) if (block.type === "tool_result") out.push(block);
      }
    }
    return out;
  }

  protected answer(req: IncomingMessage, res: ServerResponse, path: string, text: string): void {
    if (req.method === "POST" && path.startsWith("/v1/messages/count_tokens")) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ input_tokens: 10 }));
      return;
    }
    if (req.method !== "POST" || !path.startsWith("/v1/messages")) {
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "fake: not found" } }));
      return;
    }
    const body = parseBody(text) as AnthropicRequest;
    const index = this.next++;
    const step = typeof this.script === "function" ? this.script(body, index) : this.script[index];
    const turn: AnthropicTurn =
      step === undefined
        ? {
            error: {
              status: 400,
              type: "invalid_request_error",
              message: `fake anthropic: script exhausted after ${this.script.length} turn(s)`,
            },
          }
        : typeof step === "function"
          ? step(body)
          : step;
    const requestId = `req_fake_${++ids}`;
    this.watchHangUp(res, requestId);
    if (turn.hang) return;
    if (turn.error) {
      res
        .writeHead(turn.error.status, { "content-type": "application/json", "request-id": requestId, ...(turn.error.headers ?? {}) })
        .end(JSON.stringify({ type: "error", error: { type: turn.error.type, message: turn.error.message }, request_id: requestId }));
      return;
    }
    this.respond(res, body, turn, requestId);
  }

  private respond(res: ServerResponse, body: AnthropicRequest, turn: AnthropicTurn, requestId: string): void {
    const usage = turn.usage ?? { input_tokens: 10, output_tokens: 5 };
    const blocks: Record<string, unknown>[] = [];
    const pieces = turn.text === undefined ? undefined : typeof turn.text === "string" ? [turn.text] : turn.text;
    if (pieces !== undefined) blocks.push({ type: "text", text: pieces.join("") });
    for (const t of turn.toolUses ?? []) blocks.push({ type: "tool_use", id: t.id ?? `toolu_fake_${++ids}`, name: t.name, input: t.input });
    const stopReason = turn.stopReason ?? (turn.toolUses?.length ? "tool_use" : "end_turn");
    const id = `msg_fake_${++ids}`;
    if (!body.stream) {
      res.writeHead(200, { "content-type": "application/json", "request-id": requestId }).end(
        JSON.stringify({
          id,
          type: "message",
          role: "assistant",
          model: body.model,
          content: blocks,
          stop_reason: stopReason,
          stop_sequence: null,
          usage,
        }),
      );
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": requestId });
    const { output_tokens: _out, ...startUsage } = usage;
    sse(res, "message_start", {
      type: "message_start",
      message: {
        id,
        type: "message",
        role: "assistant",
        model: body.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...startUsage, output_tokens: 1 },
      },
    });
    for (const [index, b] of blocks.entries()) {
      if (b.type === "text") {
        sse(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
        if (index === 0) sse(res, "ping", { type: "ping" });
        for (const text of pieces ?? []) {
          sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text } });
          if (turn.stallAfterFirstDelta) return; // the client hangs up; `hungUp` records it
        }
      } else {
        sse(res, "content_block_start", {
          type: "content_block_start",
          index,
          content_block: { type: "tool_use", id: b.id, name: b.name, input: {} },
        });
        if (index === 0) sse(res, "ping", { type: "ping" });
        // The API streams the input JSON in pieces (the first often empty).
        const json = JSON.stringify(b.input);
        const cut = Math.floor(json.length / 2);
        for (const partial_json of ["", json.slice(0, cut), json.slice(cut)])
          sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } });
      }
      sse(res, "content_block_stop", { type: "content_block_stop", index });
    }
    sse(res, "message_delta", {
      type: "message_delta",
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    });
    sse(res, "message_stop", { type: "message_stop" });
    res.end();
  }
}
