/**
 * @module contracts/elicitation
 * The human-in-the-loop contract: an `Elicitation` asked of an `Asker`, answered with a `Decision`.
 */

/** One tool call as the model made it. Structural: any `{ id, name, arguments }` will do. */
export interface ToolCall {
  /** The call's id (the model's tool-use id). */
  readonly id: string;
  /** The tool's name as the model used it. */
  readonly name: string;
  /** The arguments, a JSON object. */
  readonly arguments: Record<string, unknown>;
}

/**
 * What a tool declares about itself, shown to the person beside the call
 * (every field optional: a Claude CLI built-in such as `Bash` declares none).
 * Text from a tool is untrusted: a viewer escapes and bounds it.
 */
export interface ToolFacts {
  /** The tool's description, as the model reads it. */
  readonly description?: string;
  /** Capability tags (`private_data`, `untrusted_content`, `egress`, ...). */
  readonly caps?: readonly string[];
  /** False when the tool is known to be read-only. */
  readonly sideEffecting?: boolean;
  /** True when a person must approve every call. */
  readonly requiresApproval?: boolean;
  /** The MCP annotations its server declared (`readOnlyHint`, `destructiveHint`, `title`, ...). */
  readonly annotations?: Readonly<Record<string, unknown>>;
}

/**
 * The `ToolFacts` of any tool-like object (a `Tool`, an MCP tool, a served
 * tool): its description, caps, side-effect and approval declarations and
 * MCP annotations, each only when present and of the right type. Never throws.
 */
export function toolFactsOf(tool: unknown): ToolFacts {
  if (tool === null || typeof tool !== "object") return {};
  const t = tool as Record<string, unknown>;
  const caps = Array.isArray(t.caps) ? t.caps.filter((c): c is string => typeof c === "string") : undefined;
  const annotations =
    t.annotations !== null && typeof t.annotations === "object" && !Array.isArray(t.annotations)
      ? (t.annotations as Record<string, unknown>)
      : undefined;
  return Object.freeze({
    ...(typeof t.description === "string" && t.description.trim() !== "" ? { description: t.description } : {}),
    ...(caps && caps.length > 0 ? { caps: Object.freeze(caps) } : {}),
    ...(typeof t.sideEffecting === "boolean" ? { sideEffecting: t.sideEffecting } : {}),
    ...(typeof t.requiresApproval === "boolean" ? { requiresApproval: t.requiresApproval } : {}),
    ...(annotations ? { annotations } : {}),
  });
}

/** A question put to a person (through an `Asker`). */
export interface Elicitation {
  /** What the person is asked, in words. */
  readonly question: string;
  /** The tool call awaiting approval, when the question is an approval. */
  readonly toolCall?: ToolCall;
  /** What the tool of `toolCall` declares about itself (description, caps, annotations), when the asking side knows the tool. */
  readonly toolFacts?: ToolFacts;
  /** Where the question comes from (`"react"`, `"approval_server"`, `"mcp_guard"`). */
  readonly source?: string;
  /** The deadline the asking side will enforce, if any. */
  readonly timeoutMs?: number;
  /**
   * A form to fill (an MCP server's form-mode `elicitation/create`): the
   * requested JSON Schema (flat object of primitives). Answer `approve` with the
   * field values in `value`: exactly those are sent (a field left out is not
   * sent, and no schema default is filled in: show a person the defaults and
   * send them as shown), `reject` to decline, anything else to cancel.
   */
  readonly form?: { readonly schema: Readonly<Record<string, unknown>> };
  /**
   * A link to open (an MCP server's URL-mode `elicitation/create`): show it to
   * the person; `approve` means they went there, `reject` declines.
   */
  readonly url?: string;
}

/** How a person answered. */
export type DecisionKind = "approve" | "reject" | "modify" | "expired";

/** A person's answer. Structural: an `Asker` may return a plain object. */
export interface Decision {
  /** `approve`, `reject`, `modify` (with edited arguments in `value`) or `expired`. */
  readonly kind: DecisionKind | (string & {});
  /**
   * Who decided, as the Asker established it (a user id, `"ci"`, the
   * terminal's OS user, an inbox session): recorded as `GateRecord.actor`.
   */
  readonly actor?: string;
  /**
   * A name the decider gave for themselves that nothing checked (the name
   * typed on the inbox page): recorded as `GateRecord.claimedActor`, beside
   * `actor`, never in its place. At most 100 characters are kept.
   */
  readonly claimedActor?: string;
  /** Free text from the decider; a rejection's reason. */
  readonly note?: string;
  /** For `modify`: the edited arguments. */
  readonly value?: unknown;
}

/**
 * What the asking side hands an `Asker` with each question (the gate always
 * passes both; a one-argument Asker may ignore them).
 */
export interface AskOptions {
  /**
   * Aborts when the asking side gives up for any reason: the client cancelled
   * or went away, the deadline fired (then `signal.reason` is a
   * `DOMException` named `"TimeoutError"`), the program stops. An Asker that
   * shows the question somewhere should withdraw it at once: nobody waits for
   * its answer any more, and a late answer decides nothing.
   */
  readonly signal: AbortSignal;
  /**
   * Unique per question, and the same string as the `questionId` of the
   * gate's record of this call (`GateRecord.questionId`): the one key that
   * ties what a person sees to what was decided. Never correlate by tool name.
   */
  readonly questionId: string;
  /**
   * True when this question was asked before under the same `questionId`
   * and its asking process stopped (a durable run resumed by
   * `agent.resume`): an Asker that keeps its questions (the inbox) answers
   * from an answer given meanwhile, or waits on the question still pending,
   * instead of asking anew. Absent otherwise.
   */
  readonly again?: boolean;
}

/**
 * The injected human transport: asks a person and waits (possibly forever)
 * for the answer. `options` is optional for implementers: an Asker written
 * with one parameter still works.
 */
export interface Asker {
  /** Asks a person about `request` and answers their decision; `options.signal` ends the wait (the call was cancelled or went away, or its deadline fired). */
  ask(request: Elicitation, options?: AskOptions): Promise<Decision>;
}

/** Build a `ToolCall` (convenience for tests and samples). */
export function toolCall(id: string, name: string, args: Record<string, unknown> = {}): ToolCall {
  return Object.freeze({ id, name, arguments: args });
}
