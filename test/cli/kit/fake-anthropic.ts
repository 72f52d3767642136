/**
 * @module test/cli/kit/fake-anthropic
 * A scripted fake of the Anthropic Messages API (`POST /v1/messages`, SSE and
 * JSON) for the real `claude` binary, on 127.0.0.1:0. Each model request
 * consumes the next scripted turn; a request past the end of the script is
 * answered with an API error naming the fake, so a broken test fails loudly.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { closeServer, listen, parseBody, readBody, sse, type RecordedRequest } from "./http-util.js";

/** One scripted model turn. */
export interface AnthropicTurn {
  /** Text the model says (before any tool use). */
  readonly text?: string;
  /** Tool uses the model makes; ids default to `toolu_fake_<n>`. */
  readonly toolUses?: readonly { readonly id?: string; readonly name: string; readonly input: Record<string, unknown> }[];
  /** Token usage reported. Default input 10, output 5. */
  readonly usage?: { readonly input_tokens: number; readonly output_tokens: number };
  /** Never answer (the request hangs until the CLI gives up or the fake closes). */
  readonly hang?: boolean;
  /** Answer with an HTTP error instead: `{ type: "error", error: { type, message } }`. */
  readonly error?: { readonly status: number; readonly type: string; readonly message: string };
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
export class FakeAnthropic {
  /** Every request received, in order (including the CLI's `HEAD /` preflight). */
  readonly requests: RecordedRequest[] = [];
  private next = 0;

  private constructor(
    private readonly server: Server,
    /** The base URL for `ANTHROPIC_BASE_URL`. */
    readonly url: string,
    private readonly script: readonly AnthropicStep[] | ((body: AnthropicRequest, index: number) => AnthropicTurn),
  ) {}

  /**
   * Start a fake answering `script`: one scripted turn per `POST
   * /v1/messages`, or a function answering every request (for runs whose
   * request order is not fixed, such as a background subagent).
   */
  static async start(script: readonly AnthropicStep[] | ((body: AnthropicRequest, index: number) => AnthropicTurn)): Promise<FakeAnthropic> {
    const ref: { self?: FakeAnthropic } = {};
    const { server, base } = await listen((req, res) => void ref.self!.handle(req, res));
    return (ref.self = new FakeAnthropic(server, base, script));
  }

  /** The bodies of the `POST /v1/messages` requests, in order. */
  get messageRequests(): AnthropicRequest[] {
    return this.requests.filter((r) => r.method === "POST" && r.path.startsWith("/v1/messages") && !r.path.startsWith("/v1/messages/count_tokens")).map((r) => r.body as AnthropicRequest);
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

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    const path = req.url ?? "/";
    this.requests.push({ method: req.method ?? "", path, headers: req.headers, body: parseBody(text) });
    if (req.method === "POST" && path.startsWith("/v1/messages/count_tokens")) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ input_tokens: 10 }));
      return;
    }
    if (req.method !== "POST" || !path.startsWith("/v1/messages")) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "fake: not found" } }));
      return;
    }
    const body = parseBody(text) as AnthropicRequest;
    const index = this.next++;
    const step = typeof this.script === "function" ? this.script(body, index) : this.script[index];
    const turn: AnthropicTurn = step === undefined
      ? { error: { status: 400, type: "invalid_request_error", message: `fake anthropic: script exhausted after ${this.script.length} turn(s)` } }
      : typeof step === "function" ? step(body) : step;
    if (turn.hang) return;
    if (turn.error) {
      res.writeHead(turn.error.status, { "content-type": "application/json" }).end(JSON.stringify({ type: "error", error: { type: turn.error.type, message: turn.error.message } }));
      return;
    }
    this.respond(res, body, turn);
  }

  private respond(res: ServerResponse, body: AnthropicRequest, turn: AnthropicTurn): void {
    const usage = turn.usage ?? { input_tokens: 10, output_tokens: 5 };
    const blocks: Record<string, unknown>[] = [];
    if (turn.text !== undefined) blocks.push({ type: "text", text: turn.text });
    for (const t of turn.toolUses ?? []) blocks.push({ type: "tool_use", id: t.id ?? `toolu_fake_${++ids}`, name: t.name, input: t.input });
    const stopReason = turn.toolUses?.length ? "tool_use" : "end_turn";
    const id = `msg_fake_${++ids}`;
    if (!body.stream) {
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({ id, type: "message", role: "assistant", model: body.model, content: blocks, stop_reason: stopReason, stop_sequence: null, usage }),
      );
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    sse(res, "message_start", {
      type: "message_start",
      message: { id, type: "message", role: "assistant", model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: usage.input_tokens, output_tokens: 1 } },
    });
    blocks.forEach((b, index) => {
      if (b.type === "text") {
        sse(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
        sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: b.text } });
      } else {
        sse(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } });
        sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } });
      }
      sse(res, "content_block_stop", { type: "content_block_stop", index });
    });
    sse(res, "message_delta", { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
    sse(res, "message_stop", { type: "message_stop" });
    res.end();
  }

  /** Stop listening and drop open connections. */
  async close(): Promise<void> {
    await closeServer(this.server);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
