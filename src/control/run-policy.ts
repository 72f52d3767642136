/**
 * @module control/run-policy
 * The Rule-of-Two check: refuse a tool set that combines the lethal trifecta.
 */

/** The three capability tags whose combination the policy refuses. */
export const TRIFECTA = Object.freeze(["private_data", "untrusted_content", "egress"] as const);

/** The exact reason given when the trifecta is present. */
export const TRIFECTA_REASON =
  "lethal trifecta: this tool set combines private-data access, untrusted-content ingestion, and egress in one run — require a human gate or split the run";

/** A policy verdict. */
export interface PolicyVerdict {
  readonly allowed: boolean;
  /** Why it was refused; `null` when allowed. */
  readonly reason: string | null;
}

/**
 * Checks a tool set before a run. Runs on your side, before the run starts:
 * nothing on the wire enforces it.
 */
export class RunPolicy {
  /** Refuse `tools` when their caps together cover private data, untrusted content and egress. */
  check(tools: Iterable<{ readonly caps: readonly string[] }>): PolicyVerdict {
    const caps = new Set<string>();
    for (const t of tools) for (const c of t.caps) caps.add(c);
    if (TRIFECTA.every((c) => caps.has(c))) return Object.freeze({ allowed: false, reason: TRIFECTA_REASON });
    return Object.freeze({ allowed: true, reason: null });
  }
}
