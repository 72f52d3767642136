/**
 * @module mcp/approvals/wire-json
 * JSON text with `", "` and `": "` separators, the spelling the approval
 * answers use on the wire, so an answer reads byte for byte the same whichever
 * agentkit produced it. Any JSON parser reads it; the Claude CLI accepts it (research/real-clis.md §1.4).
 */

/**
 * Serialize a JSON-like value with `", "` and `": "` separators. Never throws:
 * `undefined` and functions are dropped from objects and become `null` in
 * arrays (as `JSON.stringify` does), a `toJSON` method is honoured, a cycle or
 * a BigInt is rendered as `null` rather than breaking the answer.
 */
export function wireJson(value: unknown): string {
  return render(value, new Set());
}

function render(value: unknown, seen: Set<object>): string {
  if (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    try {
      value = (value as { toJSON(): unknown }).toJSON();
    } catch {
      return "null";
    }
  }
  if (value === null || typeof value !== "object") {
    if (typeof value === "bigint" || typeof value === "symbol") return "null";
    return JSON.stringify(value) ?? "null";
  }
  if (seen.has(value)) return "null";
  seen.add(value);
  try {
    if (Array.isArray(value)) return `[${value.map((v) => render(v, seen)).join(", ")}]`;
    const parts: string[] = [];
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
      parts.push(`${JSON.stringify(k)}: ${render(v, seen)}`);
    }
    return `{${parts.join(", ")}}`;
  } finally {
    seen.delete(value);
  }
}
