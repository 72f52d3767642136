/**
 * @module mcp/serve/result-pages
 * Where a long result may be cut: one pure reading of a text as JSON (one
 * value: cut between the top-level container's members), NDJSON (every
 * non-empty line parses: cut between lines) or plain text (cut anywhere but
 * inside a surrogate pair). A preview is a valid document of the same kind
 * (the first whole members, the container closed again); a page is the
 * text's own characters `[offset, end)`, so the pages joined are the text,
 * byte for byte. Lengths are JavaScript string lengths (UTF-16 code units).
 */

/** How a text is cut: between top-level JSON members, between NDJSON lines, or anywhere. */
export type PayloadShape = "json" | "ndjson" | "text";

/** A preview: a valid prefix document and the offset where the rest of the text starts. */
export interface Preview {
  readonly text: string;
  /** How many characters of the original the preview stands for: reading on from here loses nothing. */
  readonly next: number;
}

/** A page: the text's characters `[offset, end)`. */
export interface Page {
  readonly text: string;
  readonly offset: number;
  /** `end`, or `null` when the page reaches the end of the text. */
  readonly nextOffset: number | null;
  readonly total: number;
}

/** A text read once for cutting (see the module note). */
export class PayloadLayout {
  readonly shape: PayloadShape;
  /** Where a preview of `k` whole values is cut (`cuts[k]`), and where the text after them starts (`nexts[k]`). */
  private readonly cuts: number[];
  private readonly nexts: number[];
  /** What closes a JSON preview (`]` or `}`); empty for the other shapes. */
  private readonly closer: string;

  constructor(readonly text: string) {
    const json = jsonMembers(text);
    if (json) {
      this.shape = "json";
      this.cuts = json.cuts;
      this.nexts = json.nexts;
      this.closer = json.closer;
      return;
    }
    this.closer = "";
    const lines = ndjsonLines(text);
    this.shape = lines ? "ndjson" : "text";
    this.cuts = lines ?? [0];
    this.nexts = this.cuts;
  }

  /** The text's length. */
  get total(): number {
    return this.text.length;
  }

  /** The longest preview of at most `maxChars` characters: whole values for JSON and NDJSON (possibly none), a prefix for text. */
  preview(maxChars: number): Preview {
    const room = Math.max(0, maxChars);
    if (this.text.length <= room) return { text: this.text, next: this.text.length };
    if (this.shape === "text") {
      const end = safeEnd(this.text, room);
      return { text: this.text.slice(0, end), next: end };
    }
    const k = lastAtMost(this.cuts, room - this.closer.length);
    if (k < 0) return { text: "", next: 0 };
    return { text: this.text.slice(0, this.cuts[k]) + this.closer, next: this.nexts[k]! };
  }

  /**
   * The characters `[offset, end)`: `end` is the last value boundary within
   * `offset + length` (the end of the text is one); when no boundary falls
   * there (one value longer than `length`, or plain text), `end` is
   * `offset + length`, moved back off a surrogate pair's middle.
   */
  page(offset: number, length: number): Page {
    const total = this.text.length;
    const from = Math.min(Math.max(0, offset), total);
    const limit = Math.min(total, from + Math.max(1, length));
    let end = limit;
    if (limit < total && this.shape !== "text") {
      const k = lastAtMost(this.nexts, limit);
      const boundary = k >= 0 ? this.nexts[k]! : -1;
      end = boundary > from ? boundary : safeEnd(this.text, limit);
    } else if (limit < total) {
      end = safeEnd(this.text, limit);
    }
    // A lone pair at `from` with length 1: take the pair rather than nothing.
    if (end <= from && from < total) end = Math.min(total, from + 2);
    return { text: this.text.slice(from, end), offset: from, nextOffset: end < total ? end : null, total };
  }
}

/** `end`, or one less when it would split a surrogate pair. */
function safeEnd(text: string, end: number): number {
  if (end <= 0 || end >= text.length) return Math.max(0, Math.min(end, text.length));
  const before = text.charCodeAt(end - 1);
  return before >= 0xd800 && before <= 0xdbff ? end - 1 : end;
}

/** The index of the last entry of ascending `xs` that is ≤ `v`, or -1. */
function lastAtMost(xs: readonly number[], v: number): number {
  let lo = 0;
  let hi = xs.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! <= v) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

function isJsonWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * A text that parses as one JSON array or object: the cut before each
 * separating comma (`cuts[k]`: the first `k` members end there) and the
 * offset after it (`nexts[k]`). A scalar, or text that does not parse: none.
 */
function jsonMembers(text: string): { cuts: number[]; nexts: number[]; closer: string } | undefined {
  let start = 0;
  while (start < text.length && isJsonWhitespace(text.charCodeAt(start))) start++;
  const open = text[start];
  if (open !== "[" && open !== "{") return undefined;
  try {
    JSON.parse(text);
  } catch {
    return undefined;
  }
  const cuts = [start + 1];
  const nexts = [start + 1];
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) depth++;
    else if (c === 0x5d || c === 0x7d) {
      depth--;
      // The container closes: its last member ends here, and the rest (the closer, trailing space) is the last page's.
      if (depth === 0) {
        if (i > cuts[cuts.length - 1]! && text.slice(nexts[nexts.length - 1]!, i).trim() !== "") {
          cuts.push(i);
          nexts.push(text.length);
        }
        break;
      }
    } else if (c === 0x2c && depth === 1) {
      cuts.push(i);
      nexts.push(i + 1);
    }
  }
  return { cuts, nexts, closer: open === "[" ? "]" : "}" };
}

/** A text of two or more lines whose every non-empty line parses as JSON: the offset after each line (0 first). */
function ndjsonLines(text: string): number[] | undefined {
  const ends = [0];
  let from = 0;
  let values = 0;
  while (from < text.length) {
    const nl = text.indexOf("\n", from);
    const end = nl < 0 ? text.length : nl + 1;
    const line = text.slice(from, nl < 0 ? text.length : nl);
    if (line.trim() !== "") {
      try {
        JSON.parse(line);
      } catch {
        return undefined;
      }
      values++;
    }
    ends.push(end);
    from = end;
  }
  return values >= 2 ? ends : undefined;
}
