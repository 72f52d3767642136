/**
 * @module test/cli/kit/fake-openai
 * A scripted fake of the OpenAI Responses API (`POST /v1/responses`, SSE) for
 * the real `codex` binary, on 127.0.0.1:0. Each request consumes the next
 * scripted turn; past the end it answers HTTP 400 naming the fake. MCP tools
 * reach Codex as a `namespace` tool, so a call to one is scripted as
 * `{ namespace: "mcp__engine", name: "run_check" }` (a flat name gets
 * "unsupported call").
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { closeServer, listen, parseBody, readBody, sse, type RecordedRequest } from "./http-util.js";

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
  readonly text?: string;
  readonly functionCalls?: readonly FakeFunctionCall[];
  readonly usage?: { readonly input_tokens: number; readonly output_tokens: number };
  /** Never answer (the request hangs until the CLI gives up or the fake closes). */
  readonly hang?: boolean;
  /** Answer with an HTTP error instead. */
  readonly error?: { readonly status: number; readonly message: string };
}

/** A turn, or a function of the request body choosing one. */
export type OpenAIStep = OpenAITurn | ((body: ResponsesRequest) => OpenAITurn);

/** The parts of a Responses request the tests read. */
export interface ResponsesRequest {
  readonly model: string;
  readonly tools?: readonly Record<string, unknown>[];
  readonly input: readonly Record<string, unknown>[];
}

let ids = 0;

/** The scripted fake. `await using api = await FakeOpenAI.start([...])`; Codex's `base_url` is `${api.url}/v1`. */
export class FakeOpenAI {
  readonly requests: RecordedRequest[] = [];
  private next = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly script: readonly OpenAIStep[],
  ) {}

  static async start(script: readonly OpenAIStep[]): Promise<FakeOpenAI> {
    const ref: { self?: FakeOpenAI } = {};
    const { server, base } = await listen((req, res) => void ref.self!.handle(req, res));
    return (ref.self = new FakeOpenAI(server, base, script));
  }

  /** The bodies of the `POST /v1/responses` requests, in order. */
  get responseRequests(): ResponsesRequest[] {
    return this.requests.filter((r) => r.method === "POST" && r.path.startsWith("/v1/responses")).map((r) => r.body as ResponsesRequest);
  }

  /** Every `function_call_output` item Codex sent back, as the text of its output. */
  functionOutputs(): { callId: string; text: string }[] {
    const seen = new Map<string, string>();
    for (const body of this.responseRequests) {
      for (const item of body.input ?? []) {
        if (item.type !== "function_call_output") continue;
        const out = item.output;
        const text = typeof out === "string" ? out : Array.isArray(out) ? (out as Record<string, unknown>[]).map((p) => String(p.text ?? "")).join("\n") : JSON.stringify(out);
        seen.set(String(item.call_id), text);
      }
    }
    return [...seen].map(([callId, text]) => ({ callId, text }));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    const path = req.url ?? "/";
    this.requests.push({ method: req.method ?? "", path, headers: req.headers, body: parseBody(text) });
    if (req.method !== "POST" || !path.startsWith("/v1/responses")) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "fake: not found", type: "not_found" } }));
      return;
    }
    const body = parseBody(text) as ResponsesRequest;
    const step = this.script[this.next++];
    const turn: OpenAITurn = step === undefined
      ? { error: { status: 400, message: `fake openai: script exhausted after ${this.script.length} turn(s)` } }
      : typeof step === "function" ? step(body) : step;
    if (turn.hang) return;
    if (turn.error) {
      res.writeHead(turn.error.status, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: turn.error.message, type: "invalid_request_error", code: null, param: null } }));
      return;
    }
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
    if (turn.text !== undefined) {
      items.push({ type: "message", id: `msg_fake_${++ids}`, role: "assistant", status: "completed", content: [{ type: "output_text", text: turn.text, annotations: [] }] });
    }
    const id = `resp_fake_${++ids}`;
    const u = turn.usage ?? { input_tokens: 10, output_tokens: 5 };
    const usage = { input_tokens: u.input_tokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: u.output_tokens, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: u.input_tokens + u.output_tokens };
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    sse(res, "response.created", { type: "response.created", response: { id, object: "response", status: "in_progress", model: body.model, output: [] } });
    items.forEach((item, i) => {
      sse(res, "response.output_item.added", { type: "response.output_item.added", output_index: i, item: item.type === "message" ? { ...item, status: "in_progress", content: [] } : item });
      if (item.type === "message") {
        sse(res, "response.output_text.delta", { type: "response.output_text.delta", item_id: item.id, output_index: i, content_index: 0, delta: turn.text });
      }
      sse(res, "response.output_item.done", { type: "response.output_item.done", output_index: i, item });
    });
    sse(res, "response.completed", { type: "response.completed", response: { id, object: "response", status: "completed", model: body.model, output: items, usage } });
    res.end();
  }

  async close(): Promise<void> {
    await closeServer(this.server);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
