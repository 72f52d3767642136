/**
 * @module util/format
 * Small formatting helpers for messages: names quoted as `'a'`, lists as
 * `['a', 'b']`, durations in seconds, errors as `Name: message`.
 */

/** A string list as messages quote it: `['a', 'b']`. */
export function pyList(items: readonly string[]): string {
  return `[${items.map((s) => pyStr(s)).join(", ")}]`;
}

/** One string as messages quote it: single quotes unless the string holds one. */
export function pyStr(s: string): string {
  if (s.includes("'") && !s.includes('"')) return `"${s}"`;
  return `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

/** Milliseconds as messages print them, in seconds: 50 -> `0.05s`, 120000 -> `120s`. */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(6))}s`;
}

/** `RunCheck` / `runCheck` / `run-check` -> `run_check`. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .replace(/[\s-]+/g, "_")
    .toLowerCase();
}

/** A value rendered for an error message: its JSON type and a short JSON excerpt. */
export function describeValue(v: unknown): string {
  if (v === undefined) return "undefined";
  const type = v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
  let text: string;
  try {
    text = JSON.stringify(v) ?? String(v);
  } catch {
    text = String(v);
  }
  if (text.length > 60) text = `${text.slice(0, 57)}...`;
  return type === "null" ? "null" : `${type} ${text}`;
}

/** `Name: message` of an error (`TypeError: ...`); a non-Error as `Error: <value>`. */
export function errorLine(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return `Error: ${String(err)}`;
}

/** Deep-freeze a JSON-like value in place and return it. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}
