/**
 * @module bin/approve.command
 * `agentkit approve --web|--tty -- claude -p "..."`: put a person in front of
 * a headless Claude CLI run the user starts themselves. Starts an
 * `ApprovalServer` answered on the inbox page (or this terminal), runs the
 * given command with the permission-prompt flags added (the config by its
 * 0600 file's path, so the token never reaches argv), and relays its exit code.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { basename } from "node:path";
import { constants } from "node:os";
import { startApprover, type ApproveMode } from "./approver.js";
import { flag, listOption, parseCommandLine, parseMilliseconds, strayArgument, stringOption, type OptionTable } from "./args.js";
import { CliError, UsageError } from "./cli.error.js";
import type { FailureContext } from "./failure-line.js";
import { APPROVE_HELP } from "./help.js";
import { PendingPrompts } from "./pending-prompts.js";
import { signalGroup, trackGroup, untrackGroup } from "../wire/process-tree.js";

/** The exit code of a run interrupted (Ctrl-C) with prompts pending, when the child itself exited 0: 128 + SIGINT. */
const INTERRUPTED_EXIT = 130;

const OPTIONS: OptionTable = {
  web: { type: "boolean" },
  tty: { type: "boolean" },
  "timeout-ms": { type: "string" },
  audit: { type: "string" },
  "auto-allow": { type: "string", multiple: true },
  verbose: { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

/** What `approve` asked for. */
interface ApproveRequest {
  readonly mode: ApproveMode;
  readonly command: readonly string[];
  readonly timeoutMs?: number;
  readonly auditPath?: string;
  readonly autoAllow: readonly string[];
}

/** Flags in the user's command that would take the prompts away from the person (or clash with the ones added). */
const REFUSED_FLAGS: Readonly<Record<string, string>> = {
  "--permission-prompt-tool": "agentkit approve adds its own --permission-prompt-tool; remove yours",
  "--dangerously-skip-permissions": "it skips the permission prompts a person is here to answer",
  "--allow-dangerously-skip-permissions": "it lets the run skip the permission prompts a person is here to answer",
};

function checkCommand(command: readonly string[]): void {
  for (const [i, word] of command.entries()) {
    const name = word.split("=")[0]!;
    if (REFUSED_FLAGS[name]) throw new UsageError(`agentkit approve: the command holds ${name}: ${REFUSED_FLAGS[name]}`);
    const mode = name === "--permission-mode" ? (word.includes("=") ? word.slice(word.indexOf("=") + 1) : command[i + 1]) : undefined;
    if (mode === "bypassPermissions" || mode === "dontAsk") {
      throw new UsageError(
        `agentkit approve: the command holds --permission-mode ${mode}, which settles every prompt without asking; ` +
          `remove it so the person is asked`,
      );
    }
  }
}

function request(argv: readonly string[]): ApproveRequest | null {
  const line = parseCommandLine("approve", argv, OPTIONS);
  if (flag(line, "help")) return null;
  if (flag(line, "web") === flag(line, "tty"))
    throw new UsageError("agentkit approve: choose who answers: --web (a page in the browser) or --tty (this terminal), exactly one");
  if (line.positionals.length)
    throw strayArgument("approve", 1, `put the claude command after '--': agentkit approve --web -- claude -p "..."`);
  if (!line.rest || line.rest.length === 0)
    throw new UsageError(
      "agentkit approve: give the claude command after '--', e.g. agentkit approve --web -- claude -p \"fix the tests\"",
    );
  checkCommand(line.rest);
  const timeoutMs = parseMilliseconds("approve", "timeout-ms", stringOption(line, "timeout-ms"));
  const auditPath = stringOption(line, "audit");
  return {
    mode: flag(line, "web") ? "web" : "tty",
    command: line.rest,
    autoAllow: listOption(line, "auto-allow"),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(auditPath !== undefined ? { auditPath } : {}),
  };
}

/** The command with the approval flags appended (after the user's own, so a variadic flag of theirs cannot swallow them). */
export function withApprovalFlags(command: readonly string[], options: { toolName: string; configPath: string }): string[] {
  const words = [...command, "--permission-prompt-tool", options.toolName, "--mcp-config", options.configPath, "--strict-mcp-config"];
  // No ambient settings: a permissions.allow in ~/.claude would settle a call before the prompt tool sees it.
  if (!command.includes("--setting-sources")) words.push("--setting-sources", "");
  return words;
}

/**
 * How the child is started. `tty`: in its own session (`setsid`, so it has
 * no controlling terminal: nothing it starts can push keys into the prompt
 * with TIOCSTI or read the person's keys), stdin withheld, its output piped
 * and relayed. `web`: with this process's stdio, as a plain child.
 */
function spawnChild(words: readonly string[], mode: ApproveMode): ChildProcess {
  if (mode !== "tty") return spawn(words[0]!, words.slice(1), { stdio: ["inherit", "inherit", "inherit"] });
  const child = spawn(words[0]!, words.slice(1), { stdio: ["ignore", "pipe", "pipe"], detached: true });
  child.stdout!.pipe(process.stdout, { end: false });
  child.stderr!.pipe(process.stderr, { end: false });
  if (child.pid !== undefined) trackGroup(child.pid);
  return child;
}

/** Run `words`, relay signals (to the child's whole group when it has its own session), resolve with its exit code. */
function runChild(words: readonly string[], mode: ApproveMode, prompts: PendingPrompts): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const child = spawnChild(words, mode);
    const forward = (sig: NodeJS.Signals) => () => {
      if (sig === "SIGINT") prompts.interrupted();
      if (mode === "tty" && child.pid !== undefined) signalGroup(child.pid, sig);
      else child.kill(sig);
    };
    const handlers = (["SIGINT", "SIGTERM", "SIGHUP"] as const).map((sig) => [sig, forward(sig)] as const);
    for (const [sig, h] of handlers) process.on(sig, h);
    // Ctrl-C on a prompt (raw mode: no signal) stops the child as Ctrl-C elsewhere would.
    prompts.onInterrupt = handlers[0][1];
    const done = (): void => {
      prompts.onInterrupt = undefined;
      for (const [sig, h] of handlers) process.off(sig, h);
      if (child.pid !== undefined) untrackGroup(child.pid);
    };
    child.once("error", (err) => {
      done();
      reject(
        new CliError(`agentkit approve: could not run '${words[0]}': ${err.message}; check the command after '--'`, 1, { cause: err }),
      );
    });
    child.once("close", (code, signal) => {
      done();
      resolve(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1));
    });
  });
}

/** The closing line on stderr, and the exit code: non-zero when an interruption withdrew prompts, whatever the child returned. */
function finish(command: string, code: number, decided: number, prompts: PendingPrompts): number {
  const withdrawn = prompts.withdrawn;
  if (withdrawn.length === 0) {
    process.stderr.write(`agentkit approve: ${command} exited ${code}; ${decided} permission prompt(s) decided\n`);
    return code;
  }
  process.stderr.write(
    `agentkit approve: interrupted with ${withdrawn.length} permission prompt(s) pending; withdrawn (never ` +
      `answered by a person): ${withdrawn.join(", ")}. ` +
      `${command} exited ${code}\n`,
  );
  return code !== 0 ? code : INTERRUPTED_EXIT;
}

/**
 * Run `agentkit approve` with `argv` (the words after `approve`); resolves
 * with the child's exit code (128 + the signal number when it was killed),
 * except that a run interrupted (SIGINT) while prompts were pending never
 * exits 0: it names the withdrawn prompts and exits 130 if the child exited 0.
 * Under `--tty` the child runs in its own session without the terminal.
 *
 * @throws UsageError for a bad command line; CliError when the command cannot be started.
 */
export async function approveCommand(argv: readonly string[], context: FailureContext): Promise<number> {
  const req = request(argv);
  if (!req) {
    process.stdout.write(APPROVE_HELP);
    return 0;
  }
  context.timeoutFlag = "--timeout-ms";
  const approver = await startApprover(req.mode, basename(req.command[0]!));
  const prompts = new PendingPrompts(req.mode === "tty");
  try {
    const { ApprovalServer } = await import("../mcp/approvals/index.js");
    const server = await ApprovalServer.start({
      asker: prompts.wrap(approver.asker),
      ctx: approver.ctx,
      autoAllow: req.autoAllow,
      ...(req.timeoutMs !== undefined ? { timeoutMs: req.timeoutMs } : {}),
      ...(req.auditPath !== undefined ? { auditPath: req.auditPath } : {}),
    });
    try {
      if (approver.loginUrl) {
        process.stderr.write(
          `agentkit approve: answer the permission prompts in your browser: ${approver.loginUrl}\n  (a one-time ` +
            `link: it logs one browser in and is printed only here)\n`,
        );
      }
      const code = await runChild(
        withApprovalFlags(req.command, { toolName: server.toolName, configPath: server.configPath }),
        req.mode,
        prompts,
      );
      return finish(basename(req.command[0]!), code, server.decisions.length, prompts);
    } finally {
      await server.stop();
    }
  } finally {
    await approver.stop();
  }
}
