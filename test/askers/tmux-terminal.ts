/**
 * @module test/askers/tmux-terminal
 * A real pseudo-terminal for tests: one tmux server per terminal on its own
 * socket, a program run in its only pane, keys typed with send-keys and the
 * screen read with capture-pane. `close()` (or `await using`) kills the
 * server and everything in the pane. The socket is `-S` in a private temp
 * directory rather than `-L <name>`: tmux leaves a `-L` socket file behind in
 * /tmp/tmux-<uid>/ after kill-server, and a temp directory is removed whole.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { shellLine } from "../../src/wire/shell-quote.js";
import { until } from "../helpers/wait.js";

/** How `TmuxTerminal.start` runs a program. */
export interface TmuxStartOptions {
  /** Extra environment for the program (the pane inherits the test's environment too). */
  readonly env?: Record<string, string>;
  readonly cols?: number;
  readonly rows?: number;
}

/** A tmux session running one program; the pane stays open after it exits (it prints `EXITED <code>`). */
export class TmuxTerminal implements AsyncDisposable {
  readonly #dir = mkdtempSync(join(tmpdir(), "akt-tmux-"));
  readonly #socket = join(this.#dir, "socket");

  private constructor() {}

  /** Starts `argv` in a fresh tmux server (size 120x50 unless told). */
  static start(argv: readonly string[], options: TmuxStartOptions = {}): TmuxTerminal {
    const term = new TmuxTerminal();
    const env = Object.entries(options.env ?? {}).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
    // `; sleep` keeps the pane (and so the screen) readable after the program exits.
    const command = `${shellLine(argv)}; echo EXITED $?; sleep 60`;
    term.#tmux("new-session", "-d", "-s", "t", "-x", String(options.cols ?? 120), "-y", String(options.rows ?? 50), ...env, command);
    return term;
  }

  #tmux(...args: string[]): string {
    return execFileSync("tmux", ["-S", this.#socket, "-f", "/dev/null", ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  }

  /** The whole screen plus scrollback, lines joined where the terminal wrapped them. */
  screen(): string {
    return this.#tmux("capture-pane", "-p", "-J", "-S", "-2000", "-t", "t");
  }

  /** Only the rows on screen now (no scrollback), wrapped lines joined: what a person sees without scrolling. */
  visibleScreen(): string {
    return this.#tmux("capture-pane", "-p", "-J", "-t", "t");
  }

  /** Sends tmux key names (`Enter`, `Down`, `C-c`, a letter). */
  keys(...keys: string[]): void {
    this.#tmux("send-keys", "-t", "t", ...keys);
  }

  /** Types `text` literally. */
  type(text: string): void {
    this.#tmux("send-keys", "-t", "t", "-l", text);
  }

  /** Polls the screen until `re` matches (up to `ms`); throws with the screen when it never does. */
  async until(re: RegExp, ms = 5000): Promise<string> {
    let screen = "";
    await until(
      () => re.test((screen = this.screen())),
      () => `${re} on the terminal; screen:\n${screen}`,
      ms,
    );
    return screen;
  }

  /** Kills the tmux server and the pane's processes. Idempotent. */
  close(): void {
    try {
      this.#tmux("kill-server");
    } catch {
      // already gone
    }
    rmSync(this.#dir, { recursive: true, force: true });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.close();
  }
}
