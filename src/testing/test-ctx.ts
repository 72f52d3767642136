/**
 * @module testing/test-ctx
 * A `RunContext` that records what it emits.
 */
import { RunContext, type Autonomy } from "../context/run-context.js";
import type { RunEvent } from "../context/run-events.js";
import type { Caller } from "../context/caller.js";
import type { Asker } from "../contracts/elicitation.js";
import type { LLM } from "../contracts/llm.js";

/** A `RunContext` whose emitted events are recorded on `events`, in order. */
export class TestRunContext extends RunContext {
  /** Every emitted `{ event, data }`, in emission order. */
  readonly events: RunEvent[];

  constructor(options: { llm?: LLM; asker?: Asker; autonomy?: Autonomy; signal?: AbortSignal; caller?: Caller } = {}) {
    const events: RunEvent[] = [];
    super({ ...options, sink: (e) => events.push(e) });
    this.events = events;
  }

  /** The recorded events named `name`. */
  eventsNamed(name: string): RunEvent[] {
    return this.events.filter((e) => e.event === name);
  }
}

/** A context for tests and samples: records events on `ctx.events`. */
export function makeTestCtx(
  options: { llm?: LLM; asker?: Asker; autonomy?: Autonomy; signal?: AbortSignal; caller?: Caller } = {},
): TestRunContext {
  return new TestRunContext(options);
}
