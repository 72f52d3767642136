/**
 * @module mcp/serve/heartbeat
 * Keeping a client waiting while a person takes their time: the progress
 * notifications of one served request (`RequestProgress`), shared by the
 * tool's own `ctx.progress()` and the heartbeat that says "still waiting"
 * when the request has been silent for `heartbeatMs`.
 *
 * Why progress notifications: the Claude Code CLI (2.1.332) aborts an HTTP MCP
 * call that "sent no response or progress" for 300 s (30 minutes over stdio),
 * and resets that clock on each `notifications/progress` for the call's
 * progress token, which it always sends. A notification also puts bytes on the
 * call's SSE stream, so no HTTP idle timer in between fires either.
 */
import type { ServerContext } from "@modelcontextprotocol/server";
import { OptionsError } from "../../errors/options.error.js";
import { describeValue } from "../../util/format.js";
import { MAX_TIMEOUT_MS } from "../../options/option-checks.js";
import { ignoreRejection } from "../../util/logger.js";

/** How often a silent pending call tells its client it is still alive, by default: 30 s. */
export const DEFAULT_HEARTBEAT_MS = 30_000;

/** What a request's progress needs of the SDK's per-request context: its `_meta` (the progress token) and `notify`. */
export interface ProgressExtra {
  readonly mcpReq: Pick<ServerContext["mcpReq"], "_meta" | "notify">;
}

/** One progress notification's values. */
export interface ProgressParams {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** A heartbeat raises the last value by this much, so it never moves a tool's own scale (progress must increase). */
const BEAT_STEP = 1e-6;

/**
 * The progress notifications of one request: its token, the last value sent
 * and when. Nothing is sent for a request that carried no progress token.
 */
export class RequestProgress {
  #lastAt = Date.now();
  #lastSent = 0;
  #last = 0;
  #ended = false;

  constructor(private readonly extra: ProgressExtra) {}

  /** The client's progress token, or `undefined` (then nothing is ever sent). */
  get token(): string | number | undefined {
    return this.extra.mcpReq._meta?.progressToken;
  }

  /** When something was last sent (or the request started), epoch ms: how long the client has heard nothing. */
  get lastAt(): number {
    return this.#lastAt;
  }

  /** When a notification was last sent, epoch ms; 0 before the first. */
  get lastSent(): number {
    return this.#lastSent;
  }

  /** Send one `notifications/progress` (best-effort: a closed stream is ignored). */
  send(params: ProgressParams): void {
    const progressToken = this.token;
    if (progressToken === undefined || this.#ended) return;
    this.#lastAt = this.#lastSent = Date.now();
    this.#last = params.progress;
    this.extra.mcpReq
      .notify({ method: "notifications/progress", params: { progressToken, ...params } })
      .catch(ignoreRejection("a progress notification to a client that may have gone"));
  }

  /**
   * A heartbeat: the last value raised by a millionth (progress must increase,
   * and a tool's own values stay on their scale), no total, and `message`.
   */
  beat(message: string): void {
    const next = Math.round((this.#last + BEAT_STEP) * 1e6) / 1e6;
    this.send({ progress: next > this.#last ? next : this.#last + BEAT_STEP, message });
  }

  /** The request ended: nothing more is sent. */
  end(): void {
    this.#ended = true;
  }
}

/**
 * Beat `progress` whenever it has been silent for `everyMs` until the returned
 * function is called. `everyMs` 0, or a request without a progress token:
 * nothing runs. `message` is read at each beat (it may say how long so far).
 * The timer does not keep the process alive.
 */
export function startHeartbeat(progress: RequestProgress, everyMs: number, message: (elapsedMs: number) => string): () => void {
  if (everyMs === 0 || progress.token === undefined) return () => {};
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const arm = (delay: number): void => {
    timer = setTimeout(tick, Math.max(delay, 1));
    timer.unref();
  };
  const tick = (): void => {
    const silent = Date.now() - progress.lastAt;
    if (silent >= everyMs) {
      progress.beat(message(Date.now() - started));
      arm(everyMs);
    } else arm(everyMs - silent);
  };
  arm(everyMs);
  return () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
}

/**
 * Check a `heartbeatMs` option: a whole number of ms from 0 (off) up to about
 * 24.8 days; `undefined` is the default (30 s). Throws what `fail` makes
 * (default `OptionsError`), naming `where` and what is accepted.
 */
export function checkHeartbeatMs(value: unknown, where: string): number {
  if (value === undefined) return DEFAULT_HEARTBEAT_MS;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > MAX_TIMEOUT_MS) {
    throw new OptionsError(
      where,
      "heartbeatMs",
      `${where}: heartbeatMs must be a whole number of milliseconds from 0 (no heartbeat) to ${MAX_TIMEOUT_MS} ` +
        `(default ${DEFAULT_HEARTBEAT_MS}), got ${describeValue(value)}`,
    );
  }
  return value;
}

/** `2m 5s` / `45s`: how long a call has waited, for a heartbeat's message. */
export function waited(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${s % 60}s`;
}
