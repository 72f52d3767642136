/**
 * @module gate/json-object
 * Is a `modify` answer's value a plain JSON object — one a JSON round trip
 * keeps whole? Checked by walking it once and building the copy that runs, so
 * a getter is read once and what was checked is what runs.
 */
import { errorLine } from "../util/format.js";

/** The outcome: the copy to run with, or why the value is refused (`value.when is a Date`). */
export type JsonObjectCheck = { readonly ok: true; readonly value: Record<string, unknown> } | { readonly ok: false; readonly why: string };

const MAX_DEPTH = 256;

/** Thrown inside the walk and caught at its top; never escapes this file. An Error so every throw in the package is one. */
class Refused extends Error {
  constructor(readonly why: string) {
    super(why);
  }
}

function kindOf(value: object): string {
  if (Array.isArray(value)) return "an array";
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === null || proto === Object.prototype) return "a plain object";
  const name = (proto as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" && name ? `${/^[AEIOU]/.test(name) ? "an" : "a"} ${name}` : "an object with a custom prototype";
}

function primitive(value: unknown, path: string): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      if (!Number.isFinite(value)) throw new Refused(`${path} is a non-finite number (${String(value)}), which JSON turns into null`);
      return value;
    case "bigint":
      throw new Refused(`${path} is a BigInt, which JSON cannot encode`);
    case "undefined":
      throw new Refused(`${path} is undefined, which JSON drops`);
    case "function":
      throw new Refused(`${path} is a function, which JSON drops`);
    default:
      throw new Refused(`${path} is a ${typeof value}, which JSON cannot encode`);
  }
}

function copyOf(value: unknown, path: string, seen: Set<object>): unknown {
  if (value === null) return null;
  if (typeof value !== "object") return primitive(value, path);
  if (seen.has(value)) throw new Refused(`${path} is circular (it contains itself)`);
  if (seen.size >= MAX_DEPTH) throw new Refused(`${path} is nested deeper than ${MAX_DEPTH} levels`);
  const kind = kindOf(value);
  if (kind !== "a plain object" && kind !== "an array") throw new Refused(`${path} is ${kind}, not plain JSON`);
  if (Object.getOwnPropertySymbols(value).length) throw new Refused(`${path} has symbol keys, which JSON drops`);
  const keys = Object.keys(value);
  if (Object.getOwnPropertyNames(value).length !== keys.length + (Array.isArray(value) ? 1 : 0)) {
    throw new Refused(`${path} has non-enumerable properties, which JSON drops`);
  }
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      if (keys.length !== value.length) throw new Refused(`${path} is a sparse array or has extra keys, which JSON does not keep`);
      return keys.map((k, i) => copyOf((value as unknown[])[i], `${path}[${i}]`, seen));
    }
    const out: Record<string, unknown> = {};
    for (const k of keys) {
      const v = copyOf(
        (value as Record<string, unknown>)[k],
        /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`,
        seen,
      );
      // defineProperty, not assignment: a "__proto__" key stays a key, never a prototype.
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

/**
 * Check that `value` is a plain JSON object (not null, not an array) that a
 * JSON round trip keeps whole: only plain objects and arrays, strings,
 * finite numbers, booleans and null inside — no `Date`, `BigInt`, cycle,
 * class instance, function, `undefined`, `NaN`/`Infinity`, symbol, `Map`.
 * Returns a fresh copy (each property read once) or the reason, naming the
 * path (`value.when is a Date, not plain JSON`). Never throws: a getter that
 * throws is a reason too.
 */
export function plainJsonObject(value: unknown): JsonObjectCheck {
  try {
    if (value === undefined) return { ok: false, why: "there is no value" };
    if (value === null || typeof value !== "object")
      return { ok: false, why: `the value is ${value === null ? "null" : `a ${typeof value}`}, not an object` };
    if (Array.isArray(value)) return { ok: false, why: "the value is an array, not an object" };
    return { ok: true, value: copyOf(value, "value", new Set()) as Record<string, unknown> };
  } catch (err) {
    if (err instanceof Refused) return { ok: false, why: err.why };
    return { ok: false, why: `reading the value threw ${errorLine(err)}` };
  }
}
