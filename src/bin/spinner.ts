/**
 * @module bin/spinner
 * A small progress spinner for a wait the user would otherwise stare at.
 */

/** What `startSpinner` returns. */
export interface Spinner {
  /** Whether frames are being drawn (false when the stream is not a TTY). */
  readonly active: boolean;
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
  if (!stream.isTTY) return { active: false, stop() {} };
  // A line wider than the terminal wraps, and "\r" then rewrites only its last row.
  const room = Math.max((stream.columns || 80) - 3, 10);
  const shown = text.length > room ? `${text.slice(0, room - 1)}…` : text;
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
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      stream.write("\r\x1b[K");
    },
  };
}

/** Run `work` with a spinner showing `text`; the spinner is erased however `work` ends. */
export async function withSpinner<T>(text: string, work: () => Promise<T>, stream: NodeJS.WriteStream = process.stderr): Promise<T> {
  const spinner = startSpinner(text, stream);
  try {
    return await work();
  } finally {
    spinner.stop();
  }
}
