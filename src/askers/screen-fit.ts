/**
 * @module askers/screen-fit
 * Fits one question's lines to the terminal so the header (what is asked,
 * where from, the time left) and the menu (the keys) are always on screen:
 * no line is wider than the terminal, and the body scrolls inside the rows
 * that are left. Pure.
 */
import { clipMiddle, wrapLine } from "../util/visible-text.js";

/** The parts of a prompt, already made visible. */
export interface ScreenParts {
  /** Always shown, each line cut head…tail to the width. */
  readonly header: readonly string[];
  /** Shown inside the rows that are left; scrolls. */
  readonly body: readonly string[];
  /** Always shown under the body (the menu, an error line); wrapped, at most three rows a line. */
  readonly footer: readonly string[];
}

/** The terminal and the view. */
export interface ScreenSize {
  readonly columns: number;
  readonly rows: number;
  /** True: body lines are wrapped whole (the full text); false: cut head…tail to one row each. */
  readonly whole: boolean;
  /** The first body row shown (clamped). */
  readonly scroll: number;
}

/** The fitted lines, and how far the body can scroll (so a key handler can clamp). */
export interface FittedScreen {
  readonly lines: string[];
  /** The largest useful `scroll`. */
  readonly maxScroll: number;
}

/** Rows kept free under the prompt (the cursor's line). */
const SPARE_ROWS = 1;
/** Below this many columns or rows the terminal is taken to be this big (lines still never exceed the real width). */
const MIN_COLUMNS = 20;
const MIN_ROWS = 8;
/** Rows one footer line may take when wrapped. */
const FOOTER_ROWS = 3;

/**
 * The lines to draw: header and footer cut to the width; the body cut (or,
 * with `whole`, wrapped) and, when it does not fit, a window of it with a
 * line saying which rows are shown and how to scroll. A cut line points to
 * `d` for the whole text.
 */
export function fitScreen(parts: ScreenParts, size: ScreenSize): FittedScreen {
  const width = Math.max(MIN_COLUMNS, Math.floor(size.columns) || 80) - 1;
  const rows = Math.max(MIN_ROWS, Math.floor(size.rows) || 24);
  const cut = (l: string): string => clipMiddle(l, width);
  const header = parts.header.map(cut);
  // Footer lines are the menu and this package's own messages: wrapped (at most FOOTER_ROWS rows each), not cut.
  const footer = parts.footer.flatMap((l) => wrapLine(l, width).slice(0, FOOTER_ROWS));
  let body = size.whole ? parts.body.flatMap((l) => wrapLine(l, width)) : parts.body.map(cut);
  if (!size.whole && body.some((l, i) => l !== parts.body[i]))
    body.push(cut("    (long lines are cut in the middle, …N cut…; d shows every line whole)"));
  const room = Math.max(1, rows - SPARE_ROWS - header.length - footer.length);
  if (body.length <= room) return { lines: [...header, ...body, ...footer], maxScroll: 0 };
  const shown = Math.max(1, room - 1);
  const maxScroll = body.length - shown;
  const from = Math.min(Math.max(0, size.scroll), maxScroll);
  const window = body.slice(from, from + shown);
  body = [...window, cut(`  ── lines ${from + 1}–${from + window.length} of ${body.length} · PgUp/PgDn or j/k scroll ──`)];
  return { lines: [...header, ...body, ...footer], maxScroll };
}
