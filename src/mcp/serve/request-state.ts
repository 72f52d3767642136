/**
 * @module mcp/serve/request-state
 * The one signer of a 2026-07-28 multi-round-trip `requestState`, on loopback
 * and hosted alike: the SDK's `createRequestStateCodec` (HMAC-SHA256, expiry,
 * bound to the caller). The key is the fleet key when hosted and a random
 * key of the served module on loopback. A state names one round of one
 * waiting call — its record id in the call-record store and the round — and
 * the call it was issued for (the tool and a hash of its arguments); it
 * carries no answers: those live in the record, so a state cannot be
 * replayed into a second run of the code after its question.
 */
import { createHash, randomBytes } from "node:crypto";
import type { RequestStateCodec, ServerContext } from "@modelcontextprotocol/server";
import { seconds } from "../../util/format.js";
import { sdkServer } from "../peers/sdk-server.js";

const INVALID_PARAMS = -32602;

/** One round of one waiting call: what a `requestState` names. */
export interface RoundClaim {
  /** The call's record id (`CallRecord.id`). */
  readonly id: string;
  /** The round whose question the state's retry answers (1 for the first question). */
  readonly round: number;
}

/** The signed payload (readable by the client: ids and a hash, nothing secret). */
interface StatePayload {
  readonly r: string;
  readonly n: number;
  /** The tool's served name and a hash of the call's arguments: the state is for this call only. */
  readonly t: string;
  readonly h: string;
  /** Expiry in ms since the epoch (the codec's own is in whole seconds). */
  readonly x: number;
}

/** `value` as JSON with object keys sorted (so equal arguments hash alike). */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** A JSON-RPC -32602 (invalid params) the SDK sends as it is. */
export function refuse(message: string): Error {
  return new (sdkServer().ProtocolError)(INVALID_PARAMS, message);
}

function argsHash(args: unknown): string {
  return createHash("sha256").update(canonical(args)).digest("base64url");
}

/** Where the key came from, for the message of a state whose signature does not verify. */
export type KeyScope = "module" | "fleet";

const MAC_REASON: Readonly<Record<KeyScope, string>> = {
  module: "its signature does not verify (forged, altered, or from another server process)",
  fleet: "its signature does not verify (forged, altered, or signed with another fleet key: give every process the same fleetKey)",
};

/**
 * Mints and opens request states. `principal(extra)` names the caller a
 * state is bound to (hosted: the token's client and subject; loopback: the
 * request's `Authorization` header); a state opened by another caller is
 * refused. Every refusal is a JSON-RPC `-32602` naming what was wrong.
 */
export class RequestStateSigner {
  private readonly codec: RequestStateCodec<StatePayload>;

  constructor(
    /** The HMAC key (at least 32 bytes): the fleet key when hosted; omitted, a random key of this signer. */
    key: Uint8Array | string | undefined,
    /** How long an issued state stays valid, in ms. */
    readonly ttlMs: number,
    principal: (extra: ServerContext) => string,
    private readonly scope: KeyScope = key === undefined ? "module" : "fleet",
  ) {
    this.codec = sdkServer().createRequestStateCodec<StatePayload>({
      key: key ?? randomBytes(32),
      ttlSeconds: Math.max(1, Math.ceil(ttlMs / 1000)),
      bind: principal,
    });
  }

  /** The state of `claim` for the call of `tool` with `args`, bound to the caller of `extra`. */
  mint(claim: RoundClaim, tool: string, args: unknown, extra: ServerContext): Promise<string> {
    return this.codec.mint({ r: claim.id, n: claim.round, t: tool, h: argsHash(args), x: Date.now() + this.ttlMs }, extra);
  }

  /**
   * The round a retry's `requestState` names. Rejects with a JSON-RPC
   * `-32602`: malformed, not signed with this key, expired, issued to
   * another caller, or issued for another call (tool or arguments).
   */
  async open(state: unknown, tool: string, args: unknown, extra: ServerContext): Promise<RoundClaim> {
    if (typeof state !== "string")
      throw refuse(
        "requestState: not a state this server issued (malformed); retry with the requestState of the input_required result unchanged, or call the tool afresh without one",
      );
    let p: StatePayload;
    try {
      p = await this.codec.verify(state, extra);
    } catch (err) {
      throw refuse(`requestState: ${this.reason((err as Error).message)}; call the tool afresh without one`);
    }
    if (!p || typeof p.r !== "string" || typeof p.n !== "number" || typeof p.x !== "number")
      throw refuse("requestState: not a state this server issued (malformed); call the tool afresh without one");
    if (p.x <= Date.now()) throw refuse(`requestState: ${this.reason("expired")}; call the tool afresh without one`);
    if (p.t !== tool || p.h !== argsHash(args)) {
      throw refuse(
        "requestState: it belongs to another call (a different tool or different arguments); retry the call it was issued for, unchanged, or call afresh without one",
      );
    }
    return { id: p.r, round: p.n };
  }

  private reason(code: string): string {
    if (code === "mac") return MAC_REASON[this.scope];
    if (code === "expired") return `expired (a question waits at most ${seconds(this.ttlMs)})`;
    if (code === "bind") return "it was issued to another caller";
    return "not a state this server issued (malformed)";
  }
}
