/**
 * @module test/core/memory/sources
 * Small in-memory MemorySource factories for the memory tests.
 */
import { memoryItem, type MemoryItem, type MemorySource } from "../../../src/index.js";
import type { QueryOptions } from "../../../src/memory/memory.js";

/** A source answering with `items` (first k), recording queries and writes. */
export function sourceReturning(
  name: string,
  items: MemoryItem[],
): MemorySource & { queries: Array<[string, QueryOptions | undefined]>; written: MemoryItem[] } {
  const queries: Array<[string, QueryOptions | undefined]> = [];
  const written: MemoryItem[] = [];
  return {
    name,
    queries,
    written,
    async query(text, options) {
      queries.push([text, options]);
      return [...items, ...written].slice(0, options?.k ?? 5);
    },
    async write(item) {
      written.push(item);
    },
  };
}

/** A source whose query fails with `error`. */
export function sourceFailing(name: string, error: unknown, sync = false): MemorySource {
  return {
    name,
    query: sync
      ? () => {
          throw error;
        }
      : async () => {
          throw error;
        },
    async write() {},
  };
}

/** Items with the given contents (and optional scores). */
export function items(...specs: Array<string | [string, number]>): MemoryItem[] {
  return specs.map((s) => (typeof s === "string" ? memoryItem(s) : memoryItem(s[0], {}, s[1])));
}
