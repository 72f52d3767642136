/**
 * @module bin/spinner
 * A small progress spinner for a wait the user would otherwise stare at.
 */
import { visible } from "../util/visible-text.js";

/** What `startSpinner` returns. */
export interface Spinner {
  /** Whether frames are being drawn (false when the stream is not a TTY). */
  readonly active: boolean;
  /** Replace the text drawn behind the spinner (from the next frame on; cut to the terminal's width). */
  update(text: string): void;
  /** Erase the spinner line and stop drawing. Idempotent. */
  stop(): void;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const FRAME_MS = 80;

/**
 * Draw `text` behind a spinner on `stream` (default stderr) until `stop()`.
 * Draws nothing at all unless the stream is a TTY, so piped or captured
 * output (and the stdout of a stdio server) never sees a control character.
 * The timer is unref'd: a forgotten spinner does not keep the process alive.
 */
export function startSpinner(text: string, stream: NodeJS.WriteStream = process.stderr): Spinner {
  if (!stream.isTTY) return { active: false, update() {}, stop() {} };
  // A line wider than the terminal wraps, and "\r" then rewrites only its last row.
  const room = Math.max((stream.columns || 80) - 3, 10);
  const fit = (t: string): string => (t.length > room ? `${t.slice(0, room - 1)}…` : t);
  let shown = fit(text);
  let i = 0;
  const draw = () => {
    stream.write(`\r${FRAMES[i++ % FRAMES.length]} ${shown}`);
  };
  draw();
  const timer = setInterval(draw, FRAME_MS);
  timer.unref();
  let stopped = false;
  return {
    active: true,
    update(next: string) {
      if (stopped) return;
      shown = fit(next);
      // Clear what a longer previous text left behind, then draw the new one.
      stream.write("\r\x1b[K");
      draw();
    },
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      stream.write("\r\x1b[K");
    },
  };
}

/**
 * A progress bar for a spinner line: `[██████░░░░] 3/5 message` when the
 * total is known (the bar `width` cells, clamped to full), `3 message` when it
 * is not. The server's message is cut to at most 60 characters, with every
 * control or hidden character shown escaped (`visible()`: it is a peer's text
 * drawn on a person's terminal).
 */
export function progressBar(progress: number, total?: number, message?: string, width = 20): string {
  const words = message ? ` ${oneLine(message)}` : "";
  if (total === undefined || !(total > 0)) return `${formatCount(progress)}${words}`;
  const filled = Math.max(0, Math.min(width, Math.round((progress / total) * width)));
  return `[${"█".repeat(filled)}${"░".repeat(width - filled)}] ${formatCount(progress)}/${formatCount(total)}${words}`;
}

function formatCount(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

/** `text` fit for a status line: control characters removed, one line, at most 60 characters. */
export function oneLine(text: string): string {
  const flat = visible(String(text).trim());
  return flat.length > 60 ? `${flat.slice(0, 59)}…` : flat;
}

/**
 * Run `work` with a spinner showing `text`; `work` may `update` the text (e.g. with a progress bar). The spinner is
 * erased however `work` ends.
 */
export async function withSpinner<T>(
  text: string,
  work: (update: (text: string) => void) => Promise<T>,
  stream: NodeJS.WriteStream = process.stderr,
): Promise<T> {
  const spinner = startSpinner(text, stream);
  try {
    return await work((next) => spinner.update(next));
  } finally {
    spinner.stop();
  }
}
