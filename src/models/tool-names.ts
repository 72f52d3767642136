/**
 * @module models/tool-names
 * Tool names as a provider accepts them, mapped back on the way in. Both
 * shipped APIs take `^[a-zA-Z0-9_-]{1,64}$` (Anthropic allows a little more
 * on some models, OpenAI less on none), so one mapping serves both.
 */
import { createHash } from "node:crypto";

/** The longest name the providers accept. */
export const MAX_WIRE_NAME_LENGTH = 64;

const VALID = /^[a-zA-Z0-9_-]{1,64}$/;

/** A stable short suffix for `name`, so two names that clean to one stay apart. */
function suffix(name: string): string {
  return createHash("sha256").update(name).digest("hex").slice(0, 8);
}

/**
 * A bijection between a request's tool names and names the provider accepts.
 * A valid name maps to itself; any other has each refused character replaced
 * by `_` and, when that collides or is too long, is cut and given a hash
 * suffix (`read_file_3f2a9c1b`). Made per request from its tool list, so the
 * mapping is exactly as stable as the list.
 */
export class ToolNames {
  private readonly toWire = new Map<string, string>();
  private readonly fromWire = new Map<string, string>();

  constructor(names: Iterable<string>) {
    const all = [...names];
    // Valid names first: they keep their spelling, mapped names avoid them.
    for (const n of all) if (VALID.test(n)) this.add(n, n);
    for (const n of all) {
      if (this.toWire.has(n)) continue;
      const clean = n.replace(/[^a-zA-Z0-9_-]/g, "_") || "tool";
      let wire =
        clean.length <= MAX_WIRE_NAME_LENGTH && !this.fromWire.has(clean)
          ? clean
          : `${clean.slice(0, MAX_WIRE_NAME_LENGTH - 9)}_${suffix(n)}`;
      for (let i = 2; this.fromWire.has(wire); i++) wire = `${clean.slice(0, MAX_WIRE_NAME_LENGTH - 12)}_${suffix(`${n}#${i}`)}`;
      this.add(n, wire);
    }
  }

  private add(name: string, wire: string): void {
    this.toWire.set(name, wire);
    this.fromWire.set(wire, name);
  }

  /** The name sent to the provider. A name not in the list is returned as it is. */
  wire(name: string): string {
    return this.toWire.get(name) ?? name;
  }

  /** The tool a provider's name stands for; an unknown name comes back unchanged (the loop then reports "unknown tool"). */
  local(wire: string): string {
    return this.fromWire.get(wire) ?? wire;
  }
}
