/**
 * @module util/format
 * Small formatting helpers for messages: names quoted as `'a'`, lists as
 * `['a', 'b']`, durations in seconds, errors as `Name: message` (the one formatter).
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
    text = typeof v === "number" && !Number.isFinite(v) ? String(v) : (JSON.stringify(v) ?? String(v));
  } catch {
    text = String(v);
  }
  if (text.length > 60) text = `${text.slice(0, 57)}...`;
  return type === "null" ? "null" : `${type} ${text}`;
}

/**
 * The one line an error is written as, everywhere (a tool's failure, a
 * guard's, a log line): `TimeoutError: upstream read timed out after 3s` —
 * its `name`, or its class's name when `name` is the inherited `"Error"`,
 * then its message (the name alone when there is none). A thrown non-Error
 * reads `non-Error value thrown: string "..."`. Never throws (a hostile
 * error's getters are caught).
 */
export function errorLine(err: unknown): string {
  try {
    if (err instanceof Error) {
      const ctor = (err.constructor as { name?: string } | undefined)?.name;
      const name = err.name && err.name !== "Error" ? err.name : ctor || "Error";
      return err.message ? `${name}: ${err.message}` : name;
    }
    return `non-Error value thrown: ${describeValue(err)}`;
  } catch {
    return "an error that could not be read";
  }
}

/** Deep-freeze a JSON-like value in place and return it. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}
