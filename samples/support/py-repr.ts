/**
 * @module samples/support/py-repr
 * Render values the way Python's `repr()` prints them, so a sample's output
 * can be compared line for line with the seed's printed output:
 * `{'a': True, 'b': None, 'c': ('x', 1)}`. Samples only; not part of the package.
 */

/** A Python tuple: `py(tuple("a", 1))` prints `('a', 1)`. */
export class PyTuple {
  readonly items: readonly unknown[];
  constructor(items: readonly unknown[]) {
    this.items = items;
  }
}

/** Mark values to print as a Python tuple. */
export function tuple(...items: unknown[]): PyTuple {
  return new PyTuple(items);
}

function str(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  const body = s.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\t/g, "\\t");
  return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
}

/** `repr()` of a JSON-like value: str, int/float, bool, None, list, dict, tuple. */
export function py(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "string") return str(value);
  if (typeof value === "number") return String(value); // JS has no int/float split: 1.0 prints as 1
  if (value instanceof PyTuple) return value.items.length === 1 ? `(${py(value.items[0])},)` : `(${value.items.map(py).join(", ")})`;
  if (Array.isArray(value)) return `[${value.map(py).join(", ")}]`;
  if (typeof value === "object") return `{${Object.entries(value).map(([k, v]) => `${str(k)}: ${py(v)}`).join(", ")}}`;
  return String(value);
}
