/**
 * @module mcp/serve/replay-rounds
 * Multi-round-trip (protocol revision 2026-07-28) without a process to wait
 * in: the form a stateless fleet needs. A served tool's question answers the
 * exchange `input_required` with a `requestState` that carries every answer
 * so far, signed by a key the fleet shares (the SDK's
 * `createRequestStateCodec`: HMAC-SHA256, expiry, bound to the caller);
 * this run of the tool ends there. The client's retry may land on any
 * process holding the key: it checks the state, adds the new answer, and
 * runs the tool again from the start, its questions answered in order from
 * the state until it asks a new one or returns. Code before a question runs
 * once per round, so it should be safe to repeat — and a server-side approval
 * guard is consulted on each round's run.
 */
import { createHash } from "node:crypto";
import type { RequestStateCodec, ServerContext } from "@modelcontextprotocol/server";
import { ClientRequestError } from "../../context/client-request.error.js";
import { Cancelled } from "../../errors/cancelled.error.js";
import type { RunContext } from "../../context/run-context.js";
import { seconds } from "../../util/format.js";
import { sdkServer } from "./sdk-server.js";
import { answerProblem, canonical, kindOf, refuse, type AskMethod, type CallRounds } from "./suspended-calls.js";

/** At most this many questions in one call (the state carries every answer). */
export const MAX_REPLAY_ROUNDS = 16;

/** One earlier answer: the question's method and the client's answer. */
interface Answered {
  readonly m: AskMethod;
  readonly a: unknown;
}

/** What a `requestState` carries (signed; the client cannot read a binding or alter anything). */
interface ReplayState {
  readonly v: 1;
  /** Tool name and a hash of the arguments: the state is for this call only. */
  readonly t: string;
  readonly h: string;
  /** The answers so far, in the order the tool asked. */
  readonly q: readonly Answered[];
  /** The open question: its key in `inputRequests` and its method. */
  readonly k: string;
  readonly m: AskMethod;
}

const REASONS: Readonly<Record<string, string>> = {
  malformed: "not a state this server issued (malformed)",
  mac: "its signature does not verify (forged, altered, or signed with another fleet key: give every process the same fleetKey)",
  expired: "expired",
  bind: "it was issued to another caller",
};

function argsHash(args: unknown): string {
  return createHash("sha256").update(canonical(args)).digest("base64url");
}

/**
 * The fleet's signer of replay states. `principal(extra)` names the caller a
 * state is bound to (the token's client and subject when hosted).
 */
export class ReplayKey {
  private readonly codec: RequestStateCodec<ReplayState>;

  constructor(
    key: Uint8Array | string,
    /** How long an issued state stays valid, in ms. */
    readonly ttlMs: number,
    principal: (extra: ServerContext) => string,
  ) {
    this.codec = sdkServer().createRequestStateCodec<ReplayState>({ key, ttlSeconds: Math.max(1, Math.ceil(ttlMs / 1000)), bind: principal });
  }

  /**
   * The answers a retry's `requestState` and `inputResponses` add up to.
   * Rejects with a JSON-RPC -32602 naming what was wrong: a bad, expired or
   * foreign state, a state for another call, a missing or malformed answer.
   */
  async open(state: unknown, tool: string, args: unknown, extra: ServerContext): Promise<readonly Answered[]> {
    if (typeof state !== "string") throw refuse(`requestState: ${REASONS.malformed}; retry with the requestState of the input_required result unchanged, or call the tool afresh without one`);
    let s: ReplayState;
    try {
      s = await this.codec.verify(state, extra);
    } catch (err) {
      const why = REASONS[(err as Error).message] ?? REASONS.malformed;
      const ttl = (err as Error).message === "expired" ? ` (a question waits at most ${seconds(this.ttlMs)})` : "";
      throw refuse(`requestState: ${why}${ttl}; call the tool afresh without one`);
    }
    if (s.v !== 1 || s.t !== tool || s.h !== argsHash(args)) {
      throw refuse("requestState: it belongs to another call (a different tool or different arguments); retry the call it was issued for, unchanged, or call afresh without one");
    }
    const answer = extra.mcpReq.inputResponses?.[s.k];
    if (answer === null || typeof answer !== "object") {
      throw refuse(`inputResponses: the retry of '${tool}' carries no answer under '${s.k}' (the key of the question in the input_required result); answer that question and retry with the same requestState`);
    }
    const wrong = answerProblem(s.m, answer as Record<string, unknown>);
    if (wrong) throw refuse(`inputResponses['${s.k}']: ${wrong}`);
    return [...s.q, { m: s.m, a: answer }];
  }

  /** Seal the state of a call that asks question `key` after `answers`. */
  mint(state: Omit<ReplayState, "v" | "h"> & { readonly args: unknown }, extra: ServerContext): Promise<string> {
    const { args, ...rest } = state;
    return this.codec.mint({ v: 1, h: argsHash(args), ...rest }, extra);
  }
}

/**
 * One run of a hosted call: its questions are answered from `answers` in
 * order; the first new one answers the exchange `input_required` (with the
 * state for the retry) and ends this run (its context is cancelled).
 */
export class ReplayRounds implements CallRounds {
  private next = 0;
  private respond: ((result: unknown) => void) | undefined;

  constructor(
    private readonly key: ReplayKey,
    private readonly tool: string,
    private readonly args: unknown,
    private readonly answers: readonly Answered[],
    private readonly child: RunContext,
    private readonly extra: ServerContext,
    respond: (result: unknown) => void,
  ) {
    this.respond = respond;
  }

  /**
   * The answer to this run's next question: from the state when an earlier
   * round answered it (the same method in the same place, or a
   * `ClientRequestError`), otherwise the exchange is answered
   * `input_required` and this run ends (its context cancelled; the returned
   * promise rejects with that `Cancelled`).
   */
  async ask(method: AskMethod, params: Record<string, unknown>): Promise<unknown> {
    const kind = kindOf(method);
    const i = this.next++;
    const earlier = this.answers[i];
    if (earlier) {
      if (earlier.m === method) return earlier.a;
      throw new ClientRequestError(kind, `${method}: '${this.tool}' asked its questions in another order than on its earlier run (question ${i + 1} was ${earlier.m}); a hosted tool runs again on each answer and must ask the same questions in the same order`);
    }
    if (!this.respond) throw new ClientRequestError(kind, `${method}: the call to '${this.tool}' already ended or is already waiting on an answer; ask one question at a time`);
    if (i >= MAX_REPLAY_ROUNDS) throw new ClientRequestError(kind, `${method}: '${this.tool}' asked more than ${MAX_REPLAY_ROUNDS} questions in one call (the cap of a hosted call)`);
    const key = `${method === "elicitation/create" ? "elicit" : "sample"}-${i + 1}`;
    const state = await this.key.mint({ t: this.tool, args: this.args, q: this.answers, k: key, m: method }, this.extra);
    const respond = this.respond;
    if (!respond) throw new ClientRequestError(kind, `${method}: the call to '${this.tool}' ended while its question was being prepared`);
    this.respond = undefined;
    respond({ resultType: "input_required", inputRequests: { [key]: { method, params } }, requestState: state });
    const ended = new Cancelled(`'${this.tool}' asked its client (${method}); this run ends here, and the client's retry runs the tool again with the answer`);
    this.child.cancel(ended);
    throw ended;
  }

  /** The call's result (or its ending) answers the exchange, unless a question already did. */
  reply(result: unknown): void {
    const respond = this.respond;
    this.respond = undefined;
    respond?.(result);
  }
}
