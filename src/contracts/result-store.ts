/**
 * @module contracts/result-store
 * Where a served module keeps the results it answered with a preview (a
 * result over its budget): the whole text, bound to the caller that got it,
 * until it expires. `read_result` and the `agentkit://results/<id>` resource
 * read from here.
 *
 * The contract every store keeps:
 * - `putResult` resolves once `getResult` (from any process on the store)
 *   finds it; an id already present rejects.
 * - `getResult(id, owner)` returns the result only to its `owner` and only
 *   before `expiresAt`; another owner's id, an expired one and an unknown one
 *   all read as `undefined` (a caller cannot tell them apart).
 */

/** One spilled result, as stored (plain JSON). */
export interface SpilledResult {
  /** Unguessable (≥ 128 random bits, base64url): `agentkit://results/<id>` and `read_result`'s `id`. */
  readonly id: string;
  /** The caller it is bound to (the same binding as a task's: `recordOwner`). */
  readonly owner: string;
  /** The served module's name. */
  readonly server: string;
  /** The tool whose result it is. */
  readonly tool: string;
  /** The result's text blocks joined by `"\n"`: what the pages cut, byte for byte. */
  readonly text: string;
  /** `application/json`, `application/x-ndjson` or `text/plain`. */
  readonly mimeType: string;
  /** The result's other blocks (images, audio, resources) in order, served with the resource. */
  readonly blocks: readonly Readonly<Record<string, unknown>>[];
  /** ISO 8601. */
  readonly createdAt: string;
  /** ISO 8601: after this the result reads as unknown. */
  readonly expiresAt: string;
}

/** The store seam of spilled results (`results.store`); `MemoryResultStore` is the in-process one. */
export interface ResultStore {
  /** How long a result is kept, in ms (the served note tells the model). */
  readonly ttlMs: number;
  /** Keep `result` (see the module's contract). */
  putResult(result: SpilledResult): Promise<void>;
  /** The result `id` when it is `owner`'s and has not expired; else `undefined`. */
  getResult(id: string, owner: string): Promise<SpilledResult | undefined>;
}
