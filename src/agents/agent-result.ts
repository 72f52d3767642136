/**
 * @module agents/agent-result
 * What a run returns (`AgentResult`), its stop reasons and its tool-call
 * records: one file, so the agent and a durable run's journal share them.
 */
import type { ContentPart } from "../contracts/content-part.js";

/** Why a run ended. */
export type StopReason = "complete" | "max_steps" | "cancelled" | "error";

/** One tool call made during a run, with what came of it. */
export interface ToolCallRecord {
  readonly id: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  /** The text fed back to the model. */
  readonly result: string;
  /** False when the call was refused, failed or rejected its arguments. */
  readonly ok: boolean;
  /** The result as content parts, when the tool kept non-text content (see `ToolContent`). */
  readonly parts?: readonly ContentPart[];
}

/** What `agent.run()` returns. */
export interface AgentResult {
  /** The final text. */
  readonly output: string;
  readonly stopReason: StopReason;
  /** Model turns taken. */
  readonly steps: number;
  /** Every tool call, in order. */
  readonly toolCalls: readonly ToolCallRecord[];
  /** Summed token usage, where the model reported it. */
  readonly usage: Readonly<Record<string, number>>;
  /** Set when `stopReason` is `"error"`. */
  readonly error?: Error;
  /** Extra facts a cognition reports (e.g. a CLI's permission denials). */
  readonly details?: Readonly<Record<string, unknown>>;
  /** The durable run's id (`agent.run(input, { store })`, `agent.resume()`); absent for a run without a store. */
  readonly runId?: string;
}
