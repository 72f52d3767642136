/**
 * @module mcp/serve/suspended-calls
 * Multi-round-trip (protocol revision 2026-07-28) for `ctx.elicit()` /
 * `ctx.sample()` inside a served tool's `run()`. The era has no
 * server-to-client request mid-call: the call is answered `input_required`
 * (the question inside) with a signed `requestState`, the tool's promise stays
 * suspended in this process, and the client's retry (`inputResponses` plus
 * that state) resumes the same run. The state is an HMAC (a per-process random
 * key) over the call's id, round and expiry, bound to the tool name, a hash of
 * the arguments and the caller's `Authorization` header: a forged, expired,
 * replayed or re-targeted state is refused with a JSON-RPC error naming what
 * was wrong. Suspended calls are capped and expire (the tool's context is
 * cancelled with a `ClientGaveUp`).
 */
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import type { ServerContext } from "@modelcontextprotocol/server";
import { ClientRequestError } from "../../context/client-request.error.js";
import { Cancelled } from "../../errors/cancelled.error.js";
import { ClientGaveUp } from "../../errors/client-gave-up.error.js";
import type { RunContext } from "../../context/run-context.js";
import { describeValue, seconds } from "../../util/format.js";
import { sdkServer } from "./sdk-server.js";

/** At most this many calls wait on their client's answer at once, by default. */
export const DEFAULT_MAX_SUSPENDED = 64;
/** A suspended call not resumed within this many ms is abandoned, by default (ten minutes). */
export const DEFAULT_SUSPEND_TTL_MS = 600_000;

const INVALID_PARAMS = -32602;
const CLIENT_INFO_META_KEY = "io.modelcontextprotocol/clientInfo";

/** The two questions a tool can ask its client. */
export type AskMethod = "elicitation/create" | "sampling/createMessage";

/** How a call's questions reach its client: `ask` (from the call's channel), and `reply` (the call's one answer). */
export interface CallRounds {
  ask(method: AskMethod, params: Record<string, unknown>): Promise<unknown>;
  reply(result: unknown): void;
}

/** One call's exchange hooks: what the call handler does when its call suspends and when a retry resumes it. */
export interface RoundHooks {
  /** The call's answer to the current exchange went out (`input_required`): stop what belongs to that exchange. */
  suspended(): void;
  /** A retry took the call over: bind progress, logs, heartbeat and cancellation to `extra` and its server's in-flight calls. */
  resumed(extra: ServerContext, calls: Map<string | number, RunContext>): void;
}

/** Reads the client's name from the 2026-07-28 envelope (for the record of a client that gave up). */
export function envelopeClient(extra: ServerContext): string {
  const info = (extra.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_INFO_META_KEY] as { name?: unknown } | undefined;
  return typeof info?.name === "string" && info.name ? info.name : "the MCP client";
}

/** `value` as JSON with object keys sorted (so equal arguments hash alike). */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

const ACTIONS = new Set(["accept", "decline", "cancel"]);
const ROLES = new Set(["assistant", "user"]);

/** What is wrong with a client's answer to `method` (the shape the tool's `ctx.elicit()` / `ctx.sample()` promises), or `undefined`. */
export function answerProblem(method: AskMethod, a: Record<string, unknown>): string | undefined {
  if (method === "elicitation/create") {
    const ok = typeof a.action === "string" && ACTIONS.has(a.action) && (a.action !== "accept" || a.content === undefined || (typeof a.content === "object" && a.content !== null && !Array.isArray(a.content)));
    return ok ? undefined : `an answer to elicitation/create needs action 'accept', 'decline' or 'cancel' (and content, an object, with 'accept'); got action ${describeValue(a.action)}`;
  }
  const ok = typeof a.role === "string" && ROLES.has(a.role) && typeof a.content === "object" && a.content !== null && typeof a.model === "string";
  return ok ? undefined : `an answer to sampling/createMessage needs role 'assistant' or 'user', content (an object or array) and model (a string); got ${describeValue(a)}`;
}

/** `ClientRequestError`'s kind of a question. */
export function kindOf(method: AskMethod): "elicitation" | "sampling" {
  return method === "elicitation/create" ? "elicitation" : "sampling";
}

/** A JSON-RPC -32602 (invalid params) the SDK sends as it is. */
export function refuse(message: string): Error {
  return new (sdkServer().ProtocolError)(INVALID_PARAMS, message);
}

/**
 * One 2026-07-28 call that may ask its client. Built when the call starts;
 * `ask()` is what the call's channel calls; `reply()` is the only way the
 * call's handler answers the exchange currently holding the call.
 */
export class InputRounds implements CallRounds {
  round = 0;
  private callId: string | undefined;
  private bound: string | undefined;
  private respond: ((result: unknown) => void) | undefined;
  private pending: { key: string; method: AskMethod; resolve(v: unknown): void; reject(e: unknown): void } | undefined;
  private expiry: NodeJS.Timeout | undefined;
  private done = false;

  /**
   * `bind` computes the call's binding (see `SuspendedCalls.binding`); it runs
   * only when the call first asks, so a call that never asks pays for no
   * hashing. `client` names the client (from the call's envelope) when it gives up.
   */
  constructor(
    private readonly table: SuspendedCalls,
    private readonly bind: () => string,
    readonly tool: string,
    private readonly child: RunContext,
    private readonly hooks: RoundHooks,
    respond: (result: unknown) => void,
    private client: () => string,
  ) {
    this.respond = respond;
  }

  /** The call's id in the table of waiting calls (drawn when first read). */
  get id(): string {
    return (this.callId ??= randomUUID());
  }

  /** The call's binding: its tool name, arguments and caller, signed (computed when first read). */
  get binding(): string {
    return (this.bound ??= this.bind());
  }

  /** Suspend the run on a question: the current exchange is answered `input_required`; resolves with the client's answer from its retry. */
  ask(method: AskMethod, params: Record<string, unknown>): Promise<unknown> {
    if (this.done || !this.respond) return Promise.reject(new ClientRequestError(kindOf(method), `${method}: the call to '${this.tool}' has no exchange to ask on (it already ended or is already waiting on an answer); ask one question at a time`));
    const refusal = this.table.admit(this, kindOf(method));
    if (refusal) return Promise.reject(refusal);
    this.round++;
    const key = `${method === "elicitation/create" ? "elicit" : "sample"}-${this.round}`;
    const state = this.table.mint(this.id, this.round, this.binding);
    const answer = new Promise<unknown>((resolve, reject) => (this.pending = { key, method, resolve, reject }));
    const respond = this.respond;
    this.respond = undefined;
    this.hooks.suspended();
    this.expiry = setTimeout(() => this.expire(method), this.table.ttlMs);
    this.expiry.unref(); // the listener keeps the process up; a waiting call alone does not
    respond({ resultType: "input_required", inputRequests: { [key]: { method, params } }, requestState: state });
    return answer;
  }

  /** Take the call over for a retry (the state was already checked): the suspended question gets the client's answer. */
  resume(extra: ServerContext, calls: Map<string | number, RunContext>, respond: (result: unknown) => void): void {
    const pending = this.pending;
    if (!pending || this.respond) throw refuse(`requestState: the call to '${this.tool}' is not waiting on an answer (round ${this.round} was already answered); send each requestState once`);
    const answer = extra.mcpReq.inputResponses?.[pending.key];
    if (answer === null || typeof answer !== "object") {
      throw refuse(`inputResponses: the retry of '${this.tool}' carries no answer under '${pending.key}' (the key of the question in the input_required result); answer that question and retry with the same requestState`);
    }
    const wrong = answerProblem(pending.method, answer as Record<string, unknown>);
    if (wrong) throw refuse(`inputResponses['${pending.key}']: ${wrong}`);
    if (this.expiry) clearTimeout(this.expiry);
    this.expiry = undefined;
    this.pending = undefined;
    this.respond = respond;
    this.client = () => envelopeClient(extra);
    this.hooks.resumed(extra, calls);
    pending.resolve(answer);
  }

  /** The call ended (a result, a cancel, the deadline, the server stopping): answer the exchange holding it, if any; forget the call. */
  reply(result: unknown): void {
    this.done = true;
    if (this.expiry) clearTimeout(this.expiry);
    this.expiry = undefined;
    if (this.round > 0) this.table.forget(this); // a call that never asked was never in the table
    const pending = this.pending;
    this.pending = undefined;
    // After the ending's own cancel (the deadline, the server stopping cancel right after answering): the question rejects with its reason.
    if (pending) queueMicrotask(() => pending.reject(this.child.cancelled ? this.child.signal.reason : new Cancelled(`the call to '${this.tool}' ended while it waited on its client's answer`)));
    const respond = this.respond;
    this.respond = undefined;
    respond?.(result);
  }

  private expire(method: AskMethod): void {
    this.expiry = undefined;
    this.child.cancel(new ClientGaveUp(this.client(), `it did not retry with the answer to ${method} within ${seconds(this.table.ttlMs)} (multi-round-trip, MCP 2026-07-28)`));
  }
}

/**
 * The calls of one served registry waiting on their client's answer, and the
 * per-process key that signs their request states. At most `max` wait at
 * once (the next question is refused with a `ClientRequestError` naming the
 * cap); each waits at most `ttlMs`.
 */
export class SuspendedCalls {
  private readonly key = randomBytes(32);
  private readonly waiting = new Map<string, InputRounds>();

  constructor(
    readonly max: number = DEFAULT_MAX_SUSPENDED,
    readonly ttlMs: number = DEFAULT_SUSPEND_TTL_MS,
  ) {}

  /** How many calls wait now. */
  get size(): number {
    return this.waiting.size;
  }

  /** The binding of a call: its tool name, a hash of its arguments and its caller's `Authorization` header, as an HMAC (nothing raw). */
  binding(tool: string, args: unknown, extra: ServerContext): string {
    const auth = extra.http?.req?.headers.get("authorization") ?? "";
    const argsHash = createHash("sha256").update(canonical(args)).digest("hex");
    return this.mac(`bind\0${tool}\0${argsHash}\0${auth}`);
  }

  /** `undefined` when `call` may wait (it already does, or there is room); else the refusal naming the cap. */
  admit(call: InputRounds, kind: "elicitation" | "sampling"): ClientRequestError | undefined {
    if (this.waiting.has(call.id)) return undefined;
    if (this.waiting.size >= this.max) {
      return new ClientRequestError(kind, `the call to '${call.tool}' cannot ask its client: ${this.max} calls are already waiting on their clients' answers (the cap); answer or cancel those, or raise the cap`);
    }
    this.waiting.set(call.id, call);
    return undefined;
  }

  /** Drop an ended call. */
  forget(call: InputRounds): void {
    if (this.waiting.get(call.id) === call) this.waiting.delete(call.id);
  }

  /** The signed wire state of `id`'s round `round`. */
  mint(id: string, round: number, binding: string): string {
    const body = Buffer.from(JSON.stringify({ id, round, exp: Date.now() + this.ttlMs, b: binding })).toString("base64url");
    return `v1.${body}.${this.mac(`state\0${body}`)}`;
  }

  /**
   * The waiting call a retry's `requestState` names; throws a JSON-RPC
   * `-32602` naming what was wrong: malformed, not signed by this server,
   * bound to another call, expired, or no call waiting under it.
   */
  open(state: unknown, binding: string): InputRounds {
    const [version, body, mac, extra] = typeof state === "string" ? state.split(".") : [];
    if (version !== "v1" || !body || !mac || extra !== undefined) throw refuse("requestState: not a state this server issued (malformed); retry with the requestState of the input_required result unchanged, or call the tool afresh without one");
    if (!this.same(mac, this.mac(`state\0${body}`))) throw refuse("requestState: its signature does not verify (forged, altered, or from another server process); call the tool afresh without one");
    let claims: { id?: unknown; round?: unknown; exp?: unknown; b?: unknown };
    try {
      claims = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as typeof claims;
    } catch {
      throw refuse("requestState: not a state this server issued (malformed); call the tool afresh without one");
    }
    if (typeof claims.b !== "string" || !this.same(claims.b, binding)) throw refuse("requestState: it belongs to another call (a different tool, different arguments or another caller); retry the call it was issued for, unchanged, or call afresh without one");
    if (typeof claims.exp !== "number" || claims.exp <= Date.now()) throw refuse(`requestState: expired (a suspended call waits at most ${seconds(this.ttlMs)}); call the tool afresh without one`);
    const call = typeof claims.id === "string" ? this.waiting.get(claims.id) : undefined;
    if (!call) throw refuse("requestState: no call is waiting under it (it already ended, expired, or the server restarted); call the tool afresh without one");
    if (claims.round !== call.round) throw refuse(`requestState: it is for round ${String(claims.round)} of this call, which is at round ${call.round} (a replayed state); retry with the latest requestState`);
    return call;
  }

  private mac(text: string): string {
    return createHmac("sha256", this.key).update(text).digest("base64url");
  }

  private same(a: string, b: string): boolean {
    const x = Buffer.from(a);
    const y = Buffer.from(b);
    return x.length === y.length && timingSafeEqual(x, y);
  }
}
