/**
 * @module test/cli/kit/claude-terminal
 * The real `claude` binary in its interactive terminal, not `-p`: spawned
 * directly (the native executable, no npx) inside a pseudo-terminal that
 * util-linux `script` provides, in a hermetic sandbox seeded so no first-run
 * screen waits (onboarding done, the workspace trusted, the fake API key
 * approved), against a fake Messages API. The entrypoint is then `cli`, the
 * one where Claude Code 2.1.332 turns MCP Tasks on by default. The test
 * reads the screen (escape sequences stripped) and the requests; disposing
 * kills the process group this kit started, by its id, and waits for it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { shellQuote } from "../../../src/wire/shell-quote.js";
import { until } from "../../helpers/wait.js";
import type { FakeAnthropic } from "./fake-anthropic.js";
import { CLAUDE_BIN, type Hermetic } from "./hermetic.js";

/** util-linux `script`, which gives the child a terminal. */
export const SCRIPT_BIN = "/usr/bin/script";

/** An API key the seeded config approves (interactive Claude asks about an unknown one). */
const KEY = "sk-ant-fake-terminal-0123456789abcdefghij";

/** A 0600 MCP config file naming one HTTP server `name` at `url`, with `headers` (a token belongs here, never in argv). */
export function mcpConfigFile(h: Hermetic, name: string, url: string, headers: Readonly<Record<string, string>> = {}): string {
  const path = join(h.tmp, `${name}.json`);
  writeFileSync(path, JSON.stringify({ mcpServers: { [name]: { type: "http", url, headers } } }), { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}

/** Options of one terminal session. */
export interface TerminalOptions {
  readonly mcpConfig: string;
  readonly allowedTools: readonly string[];
  readonly prompt: string;
  readonly env?: Readonly<Record<string, string>>;
}

/** One interactive Claude Code session in a terminal. `await using t = ClaudeTerminal.start(...)`. */
export class ClaudeTerminal implements AsyncDisposable {
  private raw = "";
  private readonly closed: Promise<void>;

  private constructor(private readonly child: ChildProcess) {
    child.stdout!.on("data", (b: Buffer) => (this.raw += b.toString("utf8")));
    child.stderr!.on("data", (b: Buffer) => (this.raw += b.toString("utf8")));
    this.closed = new Promise((resolve) => child.on("close", () => resolve()));
  }

  static start(h: Hermetic, api: FakeAnthropic, o: TerminalOptions): ClaudeTerminal {
    // A missing program fails the test, naming the install (bsdutils is an essential Debian package); never a skip.
    if (!existsSync(SCRIPT_BIN)) throw new Error(`${SCRIPT_BIN} is missing: install Debian's bsdutils (apt-get install -y bsdutils)`);
    writeFileSync(
      join(h.home, ".claude.json"),
      JSON.stringify({
        hasCompletedOnboarding: true,
        theme: "dark",
        customApiKeyResponses: { approved: [KEY.slice(-20)], rejected: [] },
        projects: { [h.cwd]: { hasTrustDialogAccepted: true, allowedTools: [] } },
      }),
      { mode: 0o600 },
    );
    const argv = [
      CLAUDE_BIN,
      "--model",
      "fake-model",
      "--strict-mcp-config",
      "--mcp-config",
      o.mcpConfig,
      "--allowedTools",
      o.allowedTools.join(","),
      "--setting-sources",
      "",
      o.prompt,
    ];
    const line = `stty cols 200 rows 50; exec ${argv.map(shellQuote).join(" ")}`;
    const env = { ...h.claudeEnv(api.url), TERM: "xterm-256color", ANTHROPIC_API_KEY: KEY, ...o.env };
    const child = spawn(SCRIPT_BIN, ["-qfec", line, "/dev/null"], { cwd: h.cwd, env, stdio: ["pipe", "pipe", "pipe"], detached: true });
    return new ClaudeTerminal(child);
  }

  /** Type `keys` into the terminal (what a person types; no newline added). */
  type(keys: string): void {
    this.child.stdin!.write(keys);
  }

  /** Everything the terminal showed so far, escape sequences removed, whitespace collapsed. */
  screen(): string {
    return this.raw
      .replace(/\x1b\][^\x07]*\x07/g, "")
      .replace(/\x1b\[[0-9;?>]*[a-zA-Z]/g, " ")
      .replace(/\s+/g, " ");
  }

  /**
   * `script` makes its child (claude, `exec`ed by the shell) the leader of a
   * new session on the terminal, so killing `script`'s group leaves claude
   * running until the hang-up reaches it, still writing into HOME. Kill
   * claude's own group first (by the pid `script` started), then `script`'s,
   * and wait until both are gone.
   */
  async [Symbol.asyncDispose](): Promise<void> {
    const pid = this.child.pid!;
    let kids: number[] = [];
    try {
      kids = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      // script already gone
    }
    for (const target of [...kids, pid]) {
      try {
        process.kill(-target, "SIGKILL");
      } catch {
        // already gone
      }
    }
    await this.closed;
    await until(
      () => kids.every((k) => !existsSync(`/proc/${k}`) || readFileSync(`/proc/${k}/stat`, "latin1").split(") ")[1]?.[0] === "Z"),
      "the terminal's claude to exit",
      5_000,
    );
  }
}
