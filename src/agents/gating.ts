/**
 * @module agents/gating
 * The public gating names, kept where they were: both now come from the one
 * approval engine in `gate/` (`shouldGate` decides whether a call asks,
 * `decisionOutcome` is the engine's decision table without the asking).
 */
export { decisionOutcome, shouldGate } from "../gate/index.js";
export type { GateOutcome } from "../gate/index.js";
