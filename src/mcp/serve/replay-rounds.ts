/**
 * @module mcp/serve/replay-rounds
 * Multi-round-trip (protocol revision 2026-07-28) without a process to wait
 * in: the form a stateless fleet needs. A served tool's question is written
 * to the call's record in the module's call-record store (`round-records`)
 * and answers the exchange `input_required` with a `requestState` naming
 * that record and round, signed with the key the fleet shares
 * (`request-state`); this run of the tool ends there. The client's retry may
 * land on any process on the same store: the store takes its answer once
 * (a replayed state is refused with `-32602`), and the tool runs again from
 * the start, its earlier questions answered in order from the record until
 * it asks a new one or returns. So code after a question runs once per
 * call, and code before a question may run again; a server-side guard's
 * verdict is read back from the record, not asked again.
 */
import type { CallAnswer, CallRecord } from "../../contracts/call-record.js";
import { ClientRequestError } from "../../context/client-request.error.js";
import { Cancelled } from "../../errors/cancelled.error.js";
import type { RunContext } from "../../context/run-context.js";
import { errorLine } from "../../util/format.js";
import { clientAnswers, kindOf, type AskMethod, type RoundCall, type RoundRecords } from "./round-records.js";
import type { CallRounds } from "./suspended-calls.js";

/** At most this many questions in one hosted call (each run answers the earlier ones again). */
export const MAX_REPLAY_ROUNDS = 16;

/**
 * One run of a hosted call: its questions are answered from the call's
 * record (`record`, `undefined` on the call's first run) in order; the first
 * new one is recorded, answers the exchange `input_required` (with the state
 * for the retry) and ends this run (its context is cancelled).
 */
export class ReplayRounds implements CallRounds {
  private next = 0;
  private asking = false;
  private respond: ((result: unknown) => void) | undefined;
  private readonly answers: readonly CallAnswer[];

  constructor(
    private readonly records: RoundRecords,
    private record: CallRecord | undefined,
    private readonly call: RoundCall,
    private readonly child: RunContext,
    respond: (result: unknown) => void,
  ) {
    this.respond = respond;
    this.answers = clientAnswers(record);
  }

  /**
   * The answer to this run's next question: from the record when an earlier
   * round answered it (the same method in the same place, or a
   * `ClientRequestError`), otherwise the question is recorded, the exchange
   * is answered `input_required` and this run ends (its context cancelled;
   * the returned promise rejects with that `Cancelled`).
   */
  async ask(method: AskMethod, params: Record<string, unknown>): Promise<unknown> {
    const kind = kindOf(method);
    const { tool } = this.call;
    const i = this.next++;
    const earlier = this.answers[i];
    if (earlier) {
      if (earlier.method === method) return earlier.value;
      throw new ClientRequestError(
        kind,
        `${method}: '${tool}' asked its questions in another order than on its earlier run (question ${i + 1} was ` +
          `${earlier.method}); a hosted tool runs again on each answer and must ask the same questions in the same ` +
          `order`,
      );
    }
    if (!this.respond || this.asking)
      throw new ClientRequestError(
        kind,
        `${method}: the call to '${tool}' already ended or is already waiting on an answer; ask one question at a time`,
      );
    if (i >= MAX_REPLAY_ROUNDS)
      throw new ClientRequestError(
        kind,
        `${method}: '${tool}' asked more than ${MAX_REPLAY_ROUNDS} questions in one call (the cap of a hosted call)`,
      );
    this.asking = true;
    let asked;
    try {
      asked = await this.records.asked(this.record, this.call, method, params);
    } catch (err) {
      throw new ClientRequestError(
        kind,
        `${method}: the call to '${tool}' could not record its question, so it was not asked: ${errorLine(err)}`,
        { cause: err },
      );
    }
    this.record = asked.record;
    const respond = this.respond;
    if (!respond) throw new ClientRequestError(kind, `${method}: the call to '${tool}' ended while its question was being recorded`);
    this.respond = undefined;
    respond({ resultType: "input_required", inputRequests: { [asked.key]: { method, params } }, requestState: asked.state });
    const ended = new Cancelled(
      `'${tool}' asked its client (${method}); this run ends here, and the client's retry runs the tool again with the answer`,
    );
    this.child.cancel(ended);
    throw ended;
  }

  /** The call's result (or its ending) answers the exchange, unless a question already did; the call's record, if any, is then final. */
  reply(result: unknown): void {
    const respond = this.respond;
    this.respond = undefined;
    if (!respond) return;
    if (this.record) this.records.ended(this.record, this.child.cancelled ? "cancelled" : "completed");
    respond(result);
  }
}
