/**
 * @module util/visible-text
 * What a person reads, made visible and bounded: the one place that turns
 * characters a terminal or a browser would act on or hide (C0 and C1
 * controls, DEL, bidi overrides and isolates, zero-width and other format
 * characters, line and paragraph separators, lone surrogates) into escapes a
 * person can see, and that cuts a long line head…tail to a width. Pure; used
 * by the terminal asker and by the inbox page.
 */

/**
 * Characters shown escaped: Unicode controls (Cc: C0, DEL, C1), format
 * characters (Cf: bidi marks, embeddings, overrides and isolates, zero-width
 * joiners, soft hyphen, tag characters), line/paragraph separators, lone
 * surrogates, and the Hangul fillers that render as blank letters.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\u115f\u1160\u3164\uffa0]/gu;

const SHORT: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** How `visible` writes an escape. */
export interface VisibleOptions {
  /**
   * `"text"` (default): `\x1b` for code points below 0x100, `\u202e` above,
   * `\u{e0041}` beyond the BMP; `\n`, `\r`, `\t` by name. `"json"`: only
   * `\uXXXX` escapes (a surrogate pair for astral characters), so valid JSON
   * stays valid and parses back to the same value.
   */
  readonly style?: "text" | "json";
  /** Keep `\n` as a line break (for multi-line text and pretty JSON). Default false. */
  readonly newlines?: boolean;
}

const hex = (n: number, width: number): string => n.toString(16).padStart(width, "0");

function escapeOne(ch: string, style: "text" | "json"): string {
  const code = ch.codePointAt(0)!;
  if (style === "json") {
    return ch.length === 2 ? `\\u${hex(ch.charCodeAt(0), 4)}\\u${hex(ch.charCodeAt(1), 4)}` : `\\u${hex(code, 4)}`;
  }
  if (SHORT[ch]) return SHORT[ch];
  if (code < 0x100) return `\\x${hex(code, 2)}`;
  return code > 0xffff ? `\\u{${hex(code, 5)}}` : `\\u${hex(code, 4)}`;
}

/**
 * `text` with every hidden or acting character replaced by a visible escape
 * (see `VisibleOptions`). Printable text, including non-Latin scripts and
 * emoji, is left as it is. Never throws; a non-string is first `String()`ed.
 *
 * Security: the result holds no ESC, CSI, OSC (so no screen clearing, cursor
 * moves, hyperlinks or concealed text) and no bidi reordering; a backslash is
 * left as is, so `\x1b` typed literally reads the same as an escaped ESC —
 * both are inert.
 */
export function visible(text: string, options: VisibleOptions = {}): string {
  const style = options.style ?? "text";
  return String(text).replace(HIDDEN, (ch) => (ch === "\n" && options.newlines ? ch : escapeOne(ch, style)));
}

/**
 * Terminal columns one code point takes: 2 for wide (CJK, emoji and other astral) characters, 0 for combining marks,
 * else 1 (errs wide).
 */
function columns(ch: string): number {
  const code = ch.codePointAt(0)!;
  if (/\p{M}/u.test(ch)) return 0;
  return code >= 0x1100 &&
    (code <= 0x115f ||
      (code >= 0x2e80 && code <= 0xa4cf) ||
      (code >= 0xac00 && code <= 0xd7a3) ||
      (code >= 0xf900 && code <= 0xfaff) ||
      (code >= 0xfe30 && code <= 0xfe4f) ||
      (code >= 0xff00 && code <= 0xff60) ||
      (code >= 0xffe0 && code <= 0xffe6) ||
      code >= 0x1f000)
    ? 2
    : 1;
}

/** How many terminal columns `text` (already made visible, one line) takes. */
export function textWidth(text: string): number {
  let w = 0;
  for (const ch of text) w += columns(ch);
  return w;
}

/** The longest prefix (or, with `fromEnd`, suffix) of `chars` fitting `width` columns. */
function fit(chars: readonly string[], width: number, fromEnd: boolean): string {
  const out: string[] = [];
  let w = 0;
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[fromEnd ? chars.length - 1 - i : i]!;
    w += columns(ch);
    if (w > width) break;
    out.push(ch);
  }
  return (fromEnd ? out.reverse() : out).join("");
}

/**
 * `line` cut to at most `width` columns by keeping its head and its tail
 * around a marker naming how many characters were left out (`…2940 cut…`),
 * so both the start of a command and its end stay in view. A line that fits
 * is returned unchanged. `line` should already be `visible()` (one line).
 */
export function clipMiddle(line: string, width: number): string {
  if (textWidth(line) <= width) return line;
  const chars = Array.from(line);
  let head = "";
  let tail = "";
  let marker = "…";
  // The marker's length depends on the count it names; two passes settle it.
  // The tail gets the larger share: a command's end is where a payload hides.
  for (let pass = 0; pass < 2; pass++) {
    const room = Math.max(0, width - textWidth(marker));
    head = fit(chars, Math.ceil(room * 0.45), false);
    tail = fit(chars, room - textWidth(head), true);
    const cut = chars.length - Array.from(head).length - Array.from(tail).length;
    marker = width >= 20 ? `…${cut} cut…` : "…";
  }
  return `${head}${marker}${tail}`;
}

/** `line` (one visible line) broken into pieces of at most `width` columns, nothing left out. */
export function wrapLine(line: string, width: number): string[] {
  const out: string[] = [];
  let piece = "";
  let w = 0;
  for (const ch of line) {
    const cw = columns(ch);
    if (w + cw > width && piece !== "") {
      out.push(piece);
      piece = "";
      w = 0;
    }
    piece += ch;
    w += cw;
  }
  out.push(piece);
  return out;
}
