/**
 * @module models/tool-list-memo
 * A provider's form of the last tool list it was sent. A loop sends the same
 * tools on every turn, so the name map and the converted schemas (OpenAI's
 * strict form among them) are made once per list instead of once per turn.
 */
import type { ToolSchema } from "../tools/tool.js";

/**
 * Keeps `build(tools)` for the last list seen, while the next request has
 * the same tools (the same `ToolSchema` objects, in the same order); any
 * other list is built afresh and replaces it. A schema is read when its list
 * is first built: tool schemas are not changed in place (they are `readonly`).
 */
export class ToolListMemo<T> {
  #tools: readonly ToolSchema[] | undefined;
  #value: T | undefined;

  constructor(private readonly build: (tools: readonly ToolSchema[]) => T) {}

  /** The built form of `tools`: the kept one when the list is the last one's. */
  get(tools: readonly ToolSchema[]): T {
    if (this.#value !== undefined && this.#tools !== undefined && sameTools(tools, this.#tools)) return this.#value;
    const value = this.build(tools);
    this.#tools = [...tools];
    this.#value = value;
    return value;
  }
}

function sameTools(a: readonly ToolSchema[], b: readonly ToolSchema[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
