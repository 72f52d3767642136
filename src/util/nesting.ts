/**
 * @module util/nesting
 * How deep a JSON-like value nests, measured without recursion: a value
 * nested past what `JSON.stringify`, a validator or a database's JSON parser
 * can walk is refused by name before any of them overflows its stack.
 */

/** Arguments nested deeper than this are refused before validation (they would overflow the validators' recursion). */
export const MAX_ARGUMENT_DEPTH = 512;

/**
 * Whether `value` has objects or arrays nested more than `limit` levels deep
 * (the top-level object is level 1; primitives do not count). Walks with an
 * explicit stack, so any depth is measured safely; stops at the first place
 * past the limit. Never throws for plain data (a getter that throws does).
 */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (!v || typeof v !== "object") continue;
    if (depth > limit) return true;
    for (const child of Object.values(v)) if (child && typeof child === "object") stack.push([child, depth + 1]);
  }
  return false;
}
