/**
 * @module memory/vector-memory
 * An in-process vector store with a pluggable embedder and a built-in local one.
 */
import { OptionsError } from "../errors/options.error.js";
import { createHash } from "node:crypto";
import { checkOptions, opt } from "../options/option-checks.js";
import { checkK, memoryItem, memoryNameRule, type MemoryItem, type MemorySource, type QueryOptions } from "./memory.js";

/** Turns texts into vectors of one fixed length. */
export interface Embedder {
  readonly dimensions: number;
  /** One vector of `dimensions` numbers per text, in order. */
  embed(texts: readonly string[]): Promise<number[][]>;
}

/**
 * A local embedder that needs no download: feature hashing of lower-cased
 * word tokens and character trigrams into `dimensions` buckets, L2-normalised.
 * Lexical, not semantic, but deterministic and fast.
 */
export class HashingEmbedder implements Embedder {
  constructor(readonly dimensions = 512) {
    if (!Number.isInteger(dimensions) || dimensions < 8)
      throw new OptionsError("HashingEmbedder", "dimensions", `HashingEmbedder: dimensions must be an integer >= 8, got ${dimensions}`);
  }

  /** One vector of `dimensions` numbers per text, in order (hashed words, no model). */
  async embed(texts: readonly string[]): Promise<number[][]> {
    return texts.map((t) => this.embedOne(t));
  }

  private embedOne(text: string): number[] {
    const v = new Array<number>(this.dimensions).fill(0);
    const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    const features: Array<[string, number]> = [];
    for (const w of words) {
      features.push([`w:${w}`, 1]);
      const padded = ` ${w} `;
      for (let i = 0; i + 3 <= padded.length; i++) features.push([`t:${padded.slice(i, i + 3)}`, 0.5]);
    }
    for (const [f, weight] of features) {
      const h = createHash("md5").update(f).digest();
      const idx = h.readUInt32LE(0) % this.dimensions;
      v[idx]! += (h[4]! & 1 ? 1 : -1) * weight;
    }
    const norm = Math.hypot(...v) || 1;
    return v.map((x) => x / norm);
  }
}

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0,
    na = 0,
    nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/** The options a `VectorMemory` accepts, declared once. */
const VECTOR_MEMORY_OPTIONS = {
  name: memoryNameRule(),
  embedder: opt.that<Embedder>(
    (v) =>
      typeof (v as Embedder | null)?.embed === "function" && Number.isInteger((v as Embedder).dimensions) && (v as Embedder).dimensions > 0,
    "an Embedder (a positive integer dimensions and embed(texts)), e.g. new HashingEmbedder()",
  ),
} as const;

/**
 * Stores written items with their embeddings; `query` ranks by cosine
 * similarity and sets `score`. Ties keep insertion order.
 */
export class VectorMemory implements MemorySource {
  readonly name: string;
  readonly embedder: Embedder;
  private readonly rows: Array<{ item: MemoryItem; vector: number[] }> = [];

  /**
   * @throws OptionsError for an unknown option, a missing required one or a
   *   value of the wrong kind (or `null` options), naming what is accepted.
   */
  constructor(options: { name?: string; embedder?: Embedder } = {}) {
    const o = checkOptions(options, "VectorMemory", VECTOR_MEMORY_OPTIONS);
    this.name = o.name ?? "vector";
    this.embedder = o.embedder ?? new HashingEmbedder();
  }

  /** The number of stored items. */
  get size(): number {
    return this.rows.length;
  }

  /** Embed one text, refusing a vector of the wrong length or with non-finite entries (cosine over it would be garbage). */
  private async embedOne(text: string, where: string): Promise<number[]> {
    const [vector] = await this.embedder.embed([text]);
    if (!Array.isArray(vector) || vector.length !== this.embedder.dimensions) {
      throw new OptionsError(
        `${this.name}.${where}`,
        "embedder",
        `${this.name}.${where}: the embedder returned a vector of length ` +
          `${Array.isArray(vector) ? vector.length : "(none)"}, expected ${this.embedder.dimensions}`,
      );
    }
    if (!vector.every((x) => Number.isFinite(x)))
      throw new OptionsError(
        `${this.name}.${where}`,
        "embedder",
        `${this.name}.${where}: the embedder returned a vector with a non-finite entry`,
      );
    return vector;
  }

  async write(item: MemoryItem): Promise<void> {
    if (!item || typeof item.content !== "string")
      throw new OptionsError(`${this.name}.write`, "item", `${this.name}.write: item.content must be a string`);
    const vector = await this.embedOne(item.content, "write");
    this.rows.push({ item: memoryItem(item.content, item.metadata ?? {}), vector });
  }

  async query(text: string, options: QueryOptions = {}): Promise<MemoryItem[]> {
    const k = checkK(options.k, `${this.name}.query`);
    const q = await this.embedOne(text, "query");
    return this.rows
      .map((r, i) => ({ r, i, s: cosine(q, r.vector) }))
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .slice(0, k)
      .map(({ r, s }) => memoryItem(r.item.content, r.item.metadata, s));
  }
}
