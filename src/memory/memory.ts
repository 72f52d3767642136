/**
 * @module memory/memory
 * The `MemorySource` contract and `MemoryItem`.
 */
import { OptionsError } from "../errors/options.error.js";
import type { RunContext } from "../context/run-context.js";
import { opt } from "../options/option-checks.js";

/** One remembered thing. */
export interface MemoryItem {
  readonly content: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  /** Relevance, higher is better, when the source ranks. */
  readonly score?: number;
}

/** Options of a query. */
export interface QueryOptions {
  /** How many items at most. Default 5. */
  readonly k?: number;
  readonly ctx?: RunContext;
}

/** Something an agent can query for context and, where allowed, write to. */
export interface MemorySource {
  readonly name: string;
  /** The `k` most relevant items for `text`, best first. */
  query(text: string, options?: QueryOptions): Promise<MemoryItem[]>;
  /** Store an item; sources that are read-only throw `NotImplementedError`. */
  write(item: MemoryItem, ctx?: RunContext): Promise<void>;
}

/** Build a frozen `MemoryItem`. */
export function memoryItem(content: string, metadata: Record<string, unknown> = {}, score?: number): MemoryItem {
  return Object.freeze({ content, metadata: Object.freeze({ ...metadata }), ...(score === undefined ? {} : { score }) });
}

/** Check `k`: a positive integer. */
export function checkK(k: number | undefined, where: string): number {
  const v = k ?? 5;
  if (!Number.isInteger(v) || v < 1) throw new OptionsError(where, "k", `${where}: k must be a positive integer, got ${k}`);
  return v;
}

/** The `name` option of every memory: a non-empty string, or unset for the memory's default. */
export const memoryNameRule = (): ReturnType<typeof opt.string> => opt.string("a non-empty name", true);
