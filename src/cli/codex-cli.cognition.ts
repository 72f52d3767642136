/**
 * @module cli/codex-cli.cognition
 * `CodexCliCognition`: hands the agent loop to the Codex CLI (`codex exec
 * --json`) and turns its JSONL events into the agent's events and result.
 */
import { randomUUID } from "node:crypto";
import { checkOptions, opt, type OptionRule } from "../options/option-checks.js";
import { CLI_SPAWN_RULES, isPlainObject, modelRule } from "./cli-option-rules.js";
import type { AgentResult, Cognition, CognitionInput, StopReason, ToolCallRecord } from "../agents/agent.js";
import type { RunContext } from "../context/run-context.js";
import type { CliExit, EnvOverlay } from "./cli-process.js";
import { CliRunError, tail } from "./cli-run.error.js";
import { runCliCognition, type CliStream } from "./cli-run.js";
import { tomlOverride, type TomlValue } from "../wire/toml.js";
import { contentText } from "../wire/content.js";
import type { DurableSpec, RunJournal } from "../agents/run-journal.js";
import { OptionsError } from "../errors/options.error.js";
import { DEFAULT_RESUME_PROMPT, endOrphanedSession, SESSION_MARK_ENV } from "./cli-session.js";

/** Codex's sandbox modes (`-s`). */
export type CodexSandbox = "read-only" | "workspace-write" | "danger-full-access";

/** Options of `CodexCliCognition`. `...asCodexMcp(spec)` spreads into it (`config` and `env`). */
export interface CodexCliOptions {
  /** `-m`: the model slug. */
  readonly model: string;
  /** The binary to spawn directly (the native `codex`, not its node wrapper or npx). Default `"codex"`, found on PATH. */
  readonly binary?: string;
  /** The working directory of the CLI. Default: this process's cwd. */
  readonly cwd?: string;
  /** Variables laid over `process.env` for the child (`undefined` removes one); `asCodexMcp`'s token travels here. */
  readonly env?: EnvOverlay;
  /** Start the child from `process.env` (default true) or from `env` alone. */
  readonly inheritEnv?: boolean;
  /** Kill the CLI and its whole process tree after this long; the run ends `"error"` (`cli_timeout`). Default: no deadline. */
  readonly timeoutMs?: number;
  /** Dotted config keys -> values; each becomes `-c key=<TOML value>`, in insertion order. */
  readonly config?: Readonly<Record<string, TomlValue>>;
  /** `-s`: what shell commands the model runs may touch. Default: Codex's own (`read-only` for `exec`). */
  readonly sandbox?: CodexSandbox;
  /** `--ephemeral`: keep no session files. Default true; a durable run (`agent.run` with a `store`) keeps them, to resume from. */
  readonly ephemeral?: boolean;
  /** `--enable <feature>` for each. */
  readonly enable?: readonly string[];
  /** `--disable <feature>` for each (e.g. `plugins`, `unbounded_connection_retries`). */
  readonly disable?: readonly string[];
  /** Extra arguments placed before the prompt, verbatim. */
  readonly extraArgs?: readonly string[];
  /**
   * What a resumed durable run (`agent.resume`) tells Codex when it goes on
   * with `codex exec resume <thread-id>` (a new user message). Default: a
   * line saying the process stopped and to continue from where it stopped.
   */
  readonly resumePrompt?: string;
}

type Json = Record<string, unknown>;

/** The options a `CodexCliCognition` accepts, declared once. */
const CODEX_CLI_OPTIONS = {
  model: modelRule("a model slug"),
  ...CLI_SPAWN_RULES,
  config: opt.that<Readonly<Record<string, TomlValue>>>(isPlainObject, "an object of dotted config keys to TOML values"),
  sandbox: opt.optional(opt.oneOf<CodexSandbox>(["read-only", "workspace-write", "danger-full-access"])),
  ephemeral: opt.boolean(),
  enable: opt.stringArray(),
  disable: opt.stringArray(),
} satisfies Record<keyof CodexCliOptions, OptionRule<unknown>>;

/** The text of an MCP tool result's content blocks (text joined; other kinds named). */
function mcpResultText(result: unknown): string {
  const content = (result as Json | null)?.content;
  if (!Array.isArray(content)) return result === undefined || result === null ? "" : JSON.stringify(result);
  return contentText(content, "");
}

/**
 * The Codex CLI as an agent's cognition. Each `run` spawns `codex exec --json
 * --skip-git-repo-check [--ephemeral] -m <model> [-s <sandbox>] [-c k=v ...]
 * [--enable/--disable ...] -- <task>` with stdin closed, in its own process
 * group. The agent's `prompt`, when set, goes in as `-c
 * developer_instructions=...`.
 *
 * Events emitted on `ctx`: `cli.init` (thread id), `tool.call` / `tool.result`
 * per MCP tool call (named `mcp__<server>__<tool>`) and per shell command
 * (named `shell`), `llm.turn` per agent message, `cli.warning` for Codex's
 * non-fatal error items, `cli.exit` at the end.
 *
 * Never throws: a non-zero exit (a required MCP server that failed to start,
 * a bad config key) or a `turn.failed` ends in `"error"` with a `CliRunError`
 * carrying Codex's own message; `timeoutMs` kills the tree (`cli_timeout`);
 * cancelling `ctx` kills it too and ends `"cancelled"`.
 *
 * Codex has no tool allow-list and no approval callback in `exec`: contain
 * shell with `sandbox`, and guard tools that need a human on the server side.
 *
 * Durable runs (`agent.run(input, { store })`): the run keeps Codex's session
 * (no `--ephemeral`; an explicit `ephemeral: true` is refused) and records
 * its thread id as soon as Codex prints it (`thread.started`, before its
 * first model answer can arrive; the id is Codex's own, so a crash in that
 * first moment leaves nothing to resume and the resume starts the task
 * afresh). `agent.resume` goes on with `codex exec resume <thread-id>` and
 * `resumePrompt`. Codex 0.171.0 keeps the thread in `$CODEX_HOME` (SQLite,
 * measured): the resumed request carries the conversation so far, finished
 * tool calls and their outputs included (nothing is run again); a model turn
 * that was cut off is dropped. The resumed run's `toolCalls` and `steps` are
 * those of the resumed process only.
 */
export class CodexCliCognition implements Cognition {
  readonly options: CodexCliOptions;

  /**
   * @throws OptionsError for an unknown option, a missing required one or a
   *   value of the wrong kind (or `null` options), naming what is accepted.
   */
  constructor(options: CodexCliOptions) {
    checkOptions(options, "CodexCliCognition", CODEX_CLI_OPTIONS);
    // Encode now: a value TOML cannot say fails at construction, naming its key.
    for (const [k, v] of Object.entries(options.config ?? {})) tomlOverride(k, v);
    this.options = Object.freeze({ ...options });
  }

  /** The binary that `run` spawns. */
  get binary(): string {
    return this.options.binary ?? "codex";
  }

  /**
   * What a durable run records and a resume compares: no local tools (Codex owns its loop), the CLI and its model.
   *
   * @throws OptionsError when `ephemeral` is true: an ephemeral run keeps no session to resume.
   */
  get durable(): DurableSpec {
    if (this.options.ephemeral === true) {
      throw new OptionsError(
        "CodexCliCognition",
        "ephemeral",
        "CodexCliCognition: a durable run (agent.run with a store) needs Codex's session to resume from, and ephemeral: true keeps none; drop 'ephemeral' (a durable run keeps the session) or run without a store",
      );
    }
    return { tools: [], cognition: { cli: "codex", model: this.options.model } };
  }

  /**
   * The argument vector for `task` (without the binary), in the order `run`
   * passes it. `session`: `{ persist: true }` keeps Codex's session files (a
   * durable run's first process); `{ resume: threadId }` continues that
   * thread (`exec resume`, which takes the sandbox as `-c sandbox_mode`).
   */
  args(task: string, developerInstructions = "", session?: { readonly persist: true } | { readonly resume: string }): string[] {
    const o = this.options;
    const resume = session && "resume" in session ? session.resume : undefined;
    const a = resume !== undefined ? ["exec", "resume", "--json", "--skip-git-repo-check"] : ["exec", "--json", "--skip-git-repo-check"];
    if ((o.ephemeral ?? true) && !session) a.push("--ephemeral");
    a.push("-m", o.model);
    if (o.sandbox) a.push(...(resume !== undefined ? ["-c", tomlOverride("sandbox_mode", o.sandbox)] : ["-s", o.sandbox]));
    for (const [k, v] of Object.entries(o.config ?? {})) a.push("-c", tomlOverride(k, v));
    if (developerInstructions) a.push("-c", tomlOverride("developer_instructions", developerInstructions));
    for (const f of o.enable ?? []) a.push("--enable", f);
    for (const f of o.disable ?? []) a.push("--disable", f);
    if (o.extraArgs?.length) a.push(...o.extraArgs);
    a.push("--", ...(resume !== undefined ? [resume] : []), task);
    return a;
  }

  /** Runs `task` in the Codex CLI (one `codex exec` process), with this agent's tools served to it, and answers its final text; on a durable run, records the CLI's session id and resumes it. */
  async run({ task, agent, ctx, journal }: CognitionInput): Promise<AgentResult> {
    const o = this.options;
    const had = journal?.cliSession;
    // Every process of a durable run's Codex carries the mark, so a resume finds the one a dead worker left running.
    const mark = journal ? (had?.mark ?? had?.sessionId ?? randomUUID()) : undefined;
    if (had && mark) {
      const ended = await endOrphanedSession(mark);
      if (ended.length) ctx.emit("cli.orphan_ended", { cli: "codex", sessionId: had.sessionId, pids: ended });
    }
    const args = had
      ? this.args(o.resumePrompt ?? DEFAULT_RESUME_PROMPT, agent.prompt, { resume: had.sessionId })
      : this.args(task, agent.prompt, journal ? { persist: true } : undefined);
    const stream = new CodexStream(ctx, journal && !had && mark ? { journal, mark } : undefined);
    const result = await runCliCognition(
      {
        cli: "codex",
        binary: this.binary,
        args,
        cwd: o.cwd,
        env: mark ? { ...o.env, [SESSION_MARK_ENV]: mark } : o.env,
        inheritEnv: o.inheritEnv,
        timeoutMs: o.timeoutMs,
        installHint: "@openai/codex (the native executable)",
      },
      ctx,
      stream,
    );
    // The thread id's write must have landed: a run the store could not record ends as the agent's own store failure.
    await stream.recorded;
    if (stream.recordError !== undefined)
      throw stream.recordError instanceof Error ? stream.recordError : new Error(String(stream.recordError));
    return result;
  }
}

/** The state of one `codex exec --json` run. */
class CodexStream implements CliStream {
  private readonly calls: ToolCallRecord[] = [];
  private readonly usage: Record<string, number> = {};
  private readonly warnings: string[] = [];
  private lastText = "";
  private steps = 0;
  private threadId: string | null = null;
  private completed = false;
  private failed?: string;
  /** The write of the thread id to a durable run's journal (never rejects: a failure lands in `recordError`). */
  recorded: Promise<void> = Promise.resolve();
  /** Why the thread id could not be written (the store failed). */
  recordError: unknown;

  constructor(
    private readonly ctx: RunContext,
    /**
     * A durable run's journal that has no session yet: the thread id (with the processes' mark) is recorded there as
     * soon as Codex prints it.
     */
    private readonly durable?: { readonly journal: RunJournal; readonly mark: string },
  ) {}

  line(line: string): void {
    let ev: Json;
    try {
      ev = JSON.parse(line) as Json;
    } catch {
      return;
    }
    if (!ev || typeof ev !== "object") return;
    switch (ev.type) {
      case "thread.started":
        this.threadId = typeof ev.thread_id === "string" ? ev.thread_id : null;
        if (this.durable && this.threadId) {
          this.recorded = this.durable.journal.recordCliSession({ cli: "codex", sessionId: this.threadId, mark: this.durable.mark }).then(
            () => undefined,
            (err: unknown) => void (this.recordError = err),
          );
        }
        this.ctx.emit("cli.init", { cli: "codex", threadId: this.threadId });
        return;
      case "item.started":
        return this.started((ev.item ?? {}) as Json);
      case "item.completed":
        return this.itemCompleted((ev.item ?? {}) as Json);
      case "turn.completed": {
        this.completed = true;
        const u = (ev.usage ?? {}) as Json;
        const keys: Record<string, string> = {
          input_tokens: "inputTokens",
          cached_input_tokens: "cachedInputTokens",
          output_tokens: "outputTokens",
          reasoning_output_tokens: "reasoningOutputTokens",
        };
        for (const [k, v] of Object.entries(u)) if (typeof v === "number" && keys[k]) this.usage[keys[k]] = (this.usage[keys[k]] ?? 0) + v;
        return;
      }
      case "turn.failed":
        this.failed = String(((ev.error ?? {}) as Json).message ?? "turn failed");
        return;
      case "error":
        this.warnings.push(String(ev.message ?? ""));
        this.ctx.emit("cli.warning", { cli: "codex", message: String(ev.message ?? "") });
        return;
      default:
        return;
    }
  }

  private toolName(item: Json): string {
    if (item.type === "mcp_tool_call") return `mcp__${String(item.server)}__${String(item.tool)}`;
    return "shell";
  }

  private started(item: Json): void {
    if (item.type === "mcp_tool_call" || item.type === "command_execution") {
      this.ctx.emit("tool.call", { id: String(item.id), tool: this.toolName(item) });
    }
  }

  private itemCompleted(item: Json): void {
    const id = String(item.id);
    if (item.type === "agent_message") {
      this.steps++;
      this.lastText = String(item.text ?? "");
      this.ctx.emit("llm.turn", { step: this.steps, content: this.lastText, toolCalls: [] });
    } else if (item.type === "mcp_tool_call") {
      const err = item.error as Json | null | undefined;
      const ok =
        item.status === "completed" &&
        !err &&
        (item.result as Json | null)?.is_error !== true &&
        (item.result as Json | null)?.isError !== true;
      const result = err ? String(err.message ?? "") : mcpResultText(item.result);
      const args = item.arguments && typeof item.arguments === "object" ? (item.arguments as Record<string, unknown>) : {};
      this.calls.push(Object.freeze({ id, name: this.toolName(item), arguments: args, result, ok }));
      this.ctx.emit("tool.result", { id, tool: this.toolName(item), ok });
    } else if (item.type === "command_execution") {
      const ok = item.status === "completed" && (item.exit_code === 0 || item.exit_code === undefined);
      this.calls.push(
        Object.freeze({ id, name: "shell", arguments: { command: item.command ?? "" }, result: String(item.aggregated_output ?? ""), ok }),
      );
      this.ctx.emit("tool.result", { id, tool: "shell", ok });
    } else if (item.type === "error") {
      this.warnings.push(String(item.message ?? ""));
      this.ctx.emit("cli.warning", { cli: "codex", message: String(item.message ?? "") });
    }
  }

  result(stopReason: StopReason, error?: Error, exitCode: number | null = null): AgentResult {
    return Object.freeze({
      output: this.lastText,
      stopReason,
      steps: this.steps,
      toolCalls: Object.freeze([...this.calls]),
      usage: Object.freeze({ ...this.usage }),
      details: Object.freeze({ threadId: this.threadId, warnings: Object.freeze([...this.warnings]), exitCode }),
      ...(error ? { error } : {}),
    });
  }

  finish(exit: CliExit): AgentResult {
    const stderr = exit.stderr;
    if (this.failed !== undefined) {
      return this.result(
        "error",
        new CliRunError("cli_failed", "codex", `codex reported an error (exit code ${exit.code}): ${this.failed}`, {
          exitCode: exit.code,
          stderr,
        }),
        exit.code,
      );
    }
    if (exit.code !== 0) {
      const said =
        tail(
          stderr
            .split(/\r?\n/)
            .filter(
              (l) =>
                !/^WARNING: proceeding, even though we could not create PATH aliases/.test(l) &&
                l.trim() !== "Reading additional input from stdin...",
            )
            .join("\n"),
        ) || `no output on stderr (signal ${exit.signal ?? "none"})`;
      return this.result(
        "error",
        new CliRunError("cli_failed", "codex", `codex exited with code ${exit.code}: ${said}`, { exitCode: exit.code, stderr }),
        exit.code,
      );
    }
    if (!this.completed) {
      return this.result(
        "error",
        new CliRunError("cli_no_result", "codex", `codex exited 0 without completing its turn: ${tail(stderr) || "no output on stderr"}`, {
          exitCode: exit.code,
          stderr,
        }),
        exit.code,
      );
    }
    return this.result("complete", undefined, exit.code);
  }
}
