/**
 * @module wire/toml
 * A small, strict TOML value encoder for Codex's `-c key=value` overrides
 * (Codex parses each value as TOML). Only values are encoded; keys are dotted
 * paths checked by `tomlKeyPath`.
 */
import { AgentkitError } from "../errors/agentkit.error.js";

/** A value Codex can read from `-c key=<toml>`: strings, numbers, booleans, arrays and inline tables. */
export type TomlValue = string | number | bigint | boolean | readonly TomlValue[] | { readonly [key: string]: TomlValue };

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

/** A TOML basic string: double quotes, with `"`, `\` and every control character escaped. */
export function tomlString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (c < 0x20 || c === 0x7f) out += `\\u${c.toString(16).padStart(4, "0").toUpperCase()}`;
    else out += ch;
  }
  return `${out}"`;
}

function tomlKey(k: string): string {
  return BARE_KEY.test(k) ? k : tomlString(k);
}

/**
 * Encode one value as TOML. Integers stay integers (`3`), other numbers are
 * floats (`0.5`, `1e+21`, `inf`, `nan`), arrays are `[a, b]`, plain objects are
 * inline tables `{ k = v }` (keys quoted when not bare). Throws
 * an `AgentkitError` (code `toml_encode`) naming the path for `undefined`, `null`, functions and
 * symbols, which TOML has no way to say.
 */
export function tomlValue(value: TomlValue, path = "value"): string {
  switch (typeof value) {
    case "string":
      return tomlString(value);
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return value.toString();
    case "number":
      if (Number.isNaN(value)) return "nan";
      if (!Number.isFinite(value)) return value > 0 ? "inf" : "-inf";
      if (Number.isInteger(value) && Number.isSafeInteger(value)) return String(value);
      if (Number.isInteger(value)) return String(value).includes("e") ? String(value) : `${value}.0`;
      return String(value);
    case "object": {
      if (value === null) break;
      if (Array.isArray(value)) return `[${(value as readonly TomlValue[]).map((v, i) => tomlValue(v, `${path}[${i}]`)).join(", ")}]`;
      const entries = Object.entries(value as Record<string, TomlValue>);
      if (!entries.length) return "{}";
      return `{ ${entries.map(([k, v]) => `${tomlKey(k)} = ${tomlValue(v, `${path}.${k}`)}`).join(", ")} }`;
    }
    default:
      break;
  }
  throw new AgentkitError(
    "toml_encode",
    `${path}: ${value === null ? "null" : typeof value} cannot be written as TOML; leave the key out instead`,
  );
}

/**
 * Check a dotted Codex config key (`mcp_servers.engine.url`): every segment
 * must be a bare TOML key (`[A-Za-z0-9_-]+`), because Codex splits `-c` keys
 * on `.` and does not read quoted segments. Returns the key unchanged.
 */
export function tomlKeyPath(key: string): string {
  const parts = key.split(".");
  if (!key || parts.some((p) => !BARE_KEY.test(p))) {
    throw new AgentkitError(
      "toml_encode",
      `config key ${JSON.stringify(key)} is not a dotted path of bare keys ([A-Za-z0-9_-] segments joined by '.'); ` +
        `Codex cannot address it with -c`,
    );
  }
  return key;
}

/** One `-c` argument: `key=<toml value>`. */
export function tomlOverride(key: string, value: TomlValue): string {
  return `${tomlKeyPath(key)}=${tomlValue(value, key)}`;
}
