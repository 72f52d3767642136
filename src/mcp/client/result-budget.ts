/**
 * @module mcp/client/result-budget
 * A consumed tool result within a budget: text over `maxResultChars` is cut
 * head and tail around one line naming what was cut and the id the whole
 * text is kept under (`MCPClient.spilledResult(id)`). Characters are
 * JavaScript string lengths (UTF-16 code units); a cut never splits a
 * surrogate pair. The kept texts are bounded: past `MAX_SPILLED` the oldest
 * is forgotten.
 */
import { randomUUID } from "node:crypto";
import { OptionsError } from "../../errors/options.error.js";
import { describeValue, pyList } from "../../util/format.js";

/** How many whole results one client keeps; past it the oldest is forgotten. */
export const MAX_SPILLED = 64;

/** `maxResultChars` checked: a positive whole number, or `undefined`; `OptionsError` naming `where` otherwise. */
export function checkMaxResultChars(v: unknown, where: string, option = "maxResultChars"): number | undefined {
  if (v === undefined) return undefined;
  if (!(Number.isSafeInteger(v) && (v as number) > 0))
    throw new OptionsError(where, option, `${where}: ${option} must be a positive whole number of characters, got ${describeValue(v)}`);
  return v as number;
}

/** What a cut kept: the text the model reads, and the sizes. */
export interface CutResult {
  readonly text: string;
  /** Characters of the original. */
  readonly total: number;
  /** Characters cut out of its middle. */
  readonly cut: number;
}

/** `i` moved back off the low half of a surrogate pair, so a slice there keeps the pair whole. */
function whole(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return i > 0 && c >= 0xdc00 && c <= 0xdfff ? i - 1 : i;
}

/**
 * `text` cut to at most `budget` characters: two thirds of what the note
 * leaves from its head, a third from its tail, and between them the note
 * naming how many characters were cut and the id to ask for. A budget too
 * small for the note keeps the note alone.
 */
export function cutText(text: string, budget: number, id: string): CutResult {
  const note = (cut: number): string =>
    `\n[agentkit: ${cut} of ${text.length} characters cut here; the whole result is spilled result "${id}" ` +
    `(MCPClient.spilledResult("${id}"))]\n`;
  const room = Math.max(0, budget - note(text.length).length);
  const headEnd = whole(text, Math.floor((room * 2) / 3));
  const tailStart = whole(text, text.length - (room - headEnd));
  const cut = tailStart - headEnd;
  return { text: text.slice(0, headEnd) + note(cut) + text.slice(tailStart), total: text.length, cut };
}

/** The whole texts one client cut, by id (insertion order; the oldest forgotten past `MAX_SPILLED`). */
export class SpilledResults {
  private readonly kept = new Map<string, string>();

  /** Keep `text`; its id (`r-` and 12 hex digits). */
  put(text: string): string {
    const id = `r-${randomUUID().replaceAll("-", "").slice(0, 12)}`;
    this.kept.set(id, text);
    if (this.kept.size > MAX_SPILLED) this.kept.delete(this.kept.keys().next().value!);
    return id;
  }

  /**
   * The whole text kept under `id`.
   *
   * @throws OptionsError (option `id`) naming the id and the ones kept.
   */
  get(id: string, where: string): string {
    const text = typeof id === "string" ? this.kept.get(id) : undefined;
    if (text === undefined)
      throw new OptionsError(
        where,
        "id",
        `${where}: no spilled result ${JSON.stringify(id)}; this client keeps the last ${MAX_SPILLED}: ${pyList([...this.kept.keys()])}`,
      );
    return text;
  }
}
