/**
 * @module mcp/serve/call-channel
 * `CallChannel`: the `ClientChannel` of one served request — progress and
 * log notifications on that request's own stream, and elicitation and
 * sampling requests to the client that made it, refused with a clear error
 * when the client did not declare the capability. On 2026-07-28 a question
 * goes through the call's `InputRounds` (`input_required`, then the retry).
 */
import type { ServerContext } from "@modelcontextprotocol/server";
import { ClientRequestError } from "../../context/client-request.error.js";
import {
  LOG_LEVELS,
  type ClientChannel,
  type ElicitRequest,
  type ElicitResult,
  type LogLevel,
  type SampleRequest,
  type SampleResult,
} from "../../context/client-channel.js";
import { errorLine } from "../../util/format.js";
import { schemaMismatch } from "../../tools/validate.js";
import type { JsonSchema } from "../../contracts/tool-schema.js";
import { RequestProgress } from "./heartbeat.js";
import type { CallRounds } from "./suspended-calls.js";
import { ignoreRejection } from "../../util/logger.js";
import { sdkServer } from "../peers/sdk-server.js";

type Extra = ServerContext;

/** The request `_meta` key of the 2026-07-28 log level (the SDK's `LOG_LEVEL_META_KEY`). */
const LOG_LEVEL_META_KEY = "io.modelcontextprotocol/logLevel";

/** Fewest milliseconds between two progress notifications of one call; values in between are coalesced to the latest. */
export const PROGRESS_MIN_INTERVAL_MS = 20;

/** What a channel needs of its session: the server name, the client's logging level and capabilities. */
export interface SessionView {
  readonly serverName: string;
  /** `undefined` until the client sends `logging/setLevel` (then everything at or above it is sent). */
  readonly logLevel: LogLevel | undefined;
  clientCapabilities(): { readonly elicitation?: object; readonly sampling?: object } | undefined;
}

const RANK = new Map<string, number>(LOG_LEVELS.map((l, i) => [l, i]));

/** The rank of `level` (`debug` 0 ... `emergency` 7). */
export function logRank(level: LogLevel): number {
  return RANK.get(level) ?? 1;
}

/** Why a 2025-era call served statelessly cannot ask its client (there is no session: each POST stands alone). */
function noSession(kind: "elicitation" | "sampling"): ClientRequestError {
  const what = kind === "elicitation" ? "ctx.elicit()" : "ctx.sample()";
  return new ClientRequestError(
    kind,
    `${what}: this server is hosted statelessly (arc-agentkit/express), and a client on a 2025-era MCP protocol ` +
      `has no session to be asked on mid-call; a client on protocol 2026-07-28 can answer (multi-round-trip), or do ` +
      `without the question`,
  );
}

/** One served request's channel to its client (see the module note). Built per request; holds two references until used. */
export class CallChannel implements ClientChannel {
  private pending?: { progress: number; total?: number; message?: string };
  private timer?: NodeJS.Timeout;
  private ended = false;
  /** Set on a 2026-07-28 `tools/call`: how its questions reach the client (see `suspended-calls`, `replay-rounds`). */
  rounds?: CallRounds;
  /** Set on a 2025-era call served statelessly (hosted): there is no session to ask the client on. */
  noSession?: boolean;

  constructor(
    private session: SessionView,
    private extra: Extra,
    /** The request's progress notifications (shared with its heartbeat, when it has one). */
    private requestProgress: RequestProgress = new RequestProgress(extra),
  ) {}

  /** A retried 2026-07-28 call resumed on another request: progress and logs go to that request from now on. */
  rebind(extra: Extra, requestProgress: RequestProgress): void {
    this.extra = extra;
    this.requestProgress = requestProgress;
  }

  /** Send (or coalesce) a `notifications/progress`; nothing without the client's progress token. */
  progress(done: number, total: number | undefined, message: string | undefined): void {
    if (this.requestProgress.token === undefined || this.ended) return;
    const params = { progress: done, ...(total !== undefined ? { total } : {}), ...(message !== undefined ? { message } : {}) };
    const wait = this.requestProgress.lastSent + PROGRESS_MIN_INTERVAL_MS - Date.now();
    const final = total !== undefined && done >= total;
    if (wait <= 0 || final) {
      this.pending = undefined;
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      return this.sendProgress(params);
    }
    this.pending = params;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      const p = this.pending;
      this.pending = undefined;
      if (p && !this.ended) this.sendProgress(p);
    }, wait);
  }

  private sendProgress(params: { progress: number; total?: number; message?: string }): void {
    this.requestProgress.send(params);
  }

  /**
   * Send a `notifications/message` unless the client's level filters it out:
   * on 2025-era sessions the level of its `logging/setLevel` (everything
   * before one); on 2026-07-28 the request's own `_meta` log level, and no
   * logs at all when the request names none.
   */
  log(level: LogLevel, data: unknown): void {
    const envelope = this.extra.mcpReq.envelope as Record<string, unknown> | undefined;
    const min = envelope ? (envelope[LOG_LEVEL_META_KEY] as LogLevel | undefined) : this.session.logLevel;
    if (this.ended || (envelope && min === undefined) || (min !== undefined && logRank(min) > logRank(level))) return;
    this.extra.mcpReq
      .notify({ method: "notifications/message", params: { level, logger: this.session.serverName, data } })
      .catch(ignoreRejection("a log notification to a client that may have gone"));
  }

  /**
   * `elicitation/create` to the client; `ClientRequestError` when it declared
   * no `elicitation` capability, or when it accepted with content that does not
   * match the `requestedSchema` (the tool never sees such an answer).
   */
  elicit(request: ElicitRequest): Promise<ElicitResult> {
    if (this.noSession) return Promise.reject(noSession("elicitation"));
    if (!this.clientCapabilities()?.elicitation) {
      return Promise.reject(
        new ClientRequestError(
          "elicitation",
          "ctx.elicit(): the MCP client did not declare the 'elicitation' capability (in its initialize request, or on 2026-07-28 in each request's _meta clientCapabilities), so it cannot be asked; declare capabilities.elicitation in the client, or do without the question",
        ),
      );
    }
    return (this.ask("elicitation", { method: "elicitation/create", params: request as never }) as Promise<ElicitResult>).then((answer) =>
      checkedAnswer(request, answer),
    );
  }

  /** `sampling/createMessage` to the client; `ClientRequestError` when it declared no `sampling` capability. */
  sample(request: SampleRequest): Promise<SampleResult> {
    if (this.noSession) return Promise.reject(noSession("sampling"));
    if (!this.clientCapabilities()?.sampling) {
      return Promise.reject(
        new ClientRequestError(
          "sampling",
          "ctx.sample(): the MCP client did not declare the 'sampling' capability (in its initialize request, or on 2026-07-28 in each request's _meta clientCapabilities), so it cannot sample; declare capabilities.sampling in the client, or call a model yourself (ctx.llm)",
        ),
      );
    }
    return this.ask("sampling", { method: "sampling/createMessage", params: request as never }) as Promise<SampleResult>;
  }

  /**
   * What the client declared it can answer: on 2026-07-28 the request's own
   * `_meta` envelope (each request declares it; a stdio connection keeps one
   * server for all its requests), on a 2025-era session its `initialize`.
   */
  private clientCapabilities(): { readonly elicitation?: object; readonly sampling?: object } | undefined {
    const envelope = this.extra.mcpReq.envelope as Record<string, unknown> | undefined;
    if (!envelope) return this.session.clientCapabilities();
    return envelope[sdkServer().CLIENT_CAPABILITIES_META_KEY] as { readonly elicitation?: object; readonly sampling?: object } | undefined;
  }

  private async ask(
    kind: "elicitation" | "sampling",
    request: { method: "elicitation/create" | "sampling/createMessage"; params: Record<string, unknown> },
  ): Promise<unknown> {
    if (this.extra.mcpReq.envelope) {
      // 2026-07-28 has no server-to-client request mid-call: a tools/call suspends on input_required until the client's retry answers.
      if (this.rounds) return this.rounds.ask(request.method, request.params);
      const what = kind === "elicitation" ? "ctx.elicit()" : "ctx.sample()";
      throw new ClientRequestError(
        kind,
        `${what}: on MCP protocol 2026-07-28 only a tools/call can ask its client (through input_required and the ` +
          `client's retry); a resource read or prompt render cannot, so do without the question here`,
      );
    }
    try {
      return await this.extra.mcpReq.send(request);
    } catch (err) {
      throw new ClientRequestError(kind, `the MCP client's answer to ${request.method} failed: ${errorLine(err)}`, { cause: err });
    }
  }

  /**
   * The call goes on without its request (it became an MCP task, whose
   * questions go through `rounds`): nothing more is sent on the request, and
   * the request, its session and its server are let go — only the client's
   * declared capabilities and the request's `_meta` envelope are kept.
   */
  detach(): void {
    this.end();
    const capabilities = this.clientCapabilities();
    const { serverName } = this.session;
    const { envelope } = this.extra.mcpReq;
    this.session = { serverName, logLevel: undefined, clientCapabilities: () => capabilities };
    const gone = (): Promise<never> =>
      Promise.reject(new Error("the request this call came with was answered (the call became an MCP task)"));
    this.extra = { mcpReq: { envelope, _meta: undefined, notify: gone, send: gone } } as unknown as Extra;
    this.requestProgress = new RequestProgress(this.extra);
  }

  /** The request ended: drop a coalesced progress value. */
  end(): void {
    this.ended = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = undefined;
  }
}

/** An accepted answer's content, checked against the schema the question asked with; `ClientRequestError` naming the mismatch otherwise. */
function checkedAnswer(request: ElicitRequest, answer: ElicitResult): ElicitResult {
  if (answer.action !== "accept" || answer.content === undefined) return answer;
  const mismatch = schemaMismatch(request.requestedSchema as JsonSchema, answer.content);
  if (mismatch !== undefined)
    throw new ClientRequestError("elicitation", `ctx.elicit(): the client's answer does not match the schema it asked with: ${mismatch}`);
  return answer;
}
