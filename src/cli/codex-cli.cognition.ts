/**
 * @module cli/codex-cli.cognition
 * `CodexCliCognition`: hands the agent loop to the Codex CLI (`codex exec
 * --json`) and turns its JSONL events into the agent's events and result.
 */
import { checkOptions, opt, type OptionRule } from "../options/option-checks.js";
import { CLI_SPAWN_RULES, isPlainObject, modelRule } from "./cli-option-rules.js";
import type { AgentResult, Cognition, CognitionInput, StopReason, ToolCallRecord } from "../agents/agent.js";
import type { RunContext } from "../context/run-context.js";
import type { CliExit, EnvOverlay } from "./cli-process.js";
import { CliRunError, tail } from "./cli-run.error.js";
import { runCliCognition, type CliStream } from "./cli-run.js";
import { tomlOverride, type TomlValue } from "../wire/toml.js";
import { contentText } from "../wire/content.js";

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
  /** `--ephemeral`: keep no session files. Default true. */
  readonly ephemeral?: boolean;
  /** `--enable <feature>` for each. */
  readonly enable?: readonly string[];
  /** `--disable <feature>` for each (e.g. `plugins`, `unbounded_connection_retries`). */
  readonly disable?: readonly string[];
  /** Extra arguments placed before the prompt, verbatim. */
  readonly extraArgs?: readonly string[];
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

  /** The argument vector for `task` (without the binary), in the order `run` passes it. */
  args(task: string, developerInstructions = ""): string[] {
    const o = this.options;
    const a = ["exec", "--json", "--skip-git-repo-check"];
    if (o.ephemeral ?? true) a.push("--ephemeral");
    a.push("-m", o.model);
    if (o.sandbox) a.push("-s", o.sandbox);
    for (const [k, v] of Object.entries(o.config ?? {})) a.push("-c", tomlOverride(k, v));
    if (developerInstructions) a.push("-c", tomlOverride("developer_instructions", developerInstructions));
    for (const f of o.enable ?? []) a.push("--enable", f);
    for (const f of o.disable ?? []) a.push("--disable", f);
    if (o.extraArgs?.length) a.push(...o.extraArgs);
    a.push("--", task);
    return a;
  }

  async run({ task, agent, ctx }: CognitionInput): Promise<AgentResult> {
    const o = this.options;
    return runCliCognition(
      { cli: "codex", binary: this.binary, args: this.args(task, agent.prompt), cwd: o.cwd, env: o.env, inheritEnv: o.inheritEnv, timeoutMs: o.timeoutMs, installHint: "@openai/codex (the native executable)" },
      ctx,
      new CodexStream(ctx),
    );
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

  constructor(private readonly ctx: RunContext) {}

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
        this.ctx.emit("cli.init", { cli: "codex", threadId: this.threadId });
        return;
      case "item.started":
        return this.started((ev.item ?? {}) as Json);
      case "item.completed":
        return this.itemCompleted((ev.item ?? {}) as Json);
      case "turn.completed": {
        this.completed = true;
        const u = (ev.usage ?? {}) as Json;
        const keys: Record<string, string> = { input_tokens: "inputTokens", cached_input_tokens: "cachedInputTokens", output_tokens: "outputTokens", reasoning_output_tokens: "reasoningOutputTokens" };
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
      const ok = item.status === "completed" && !err && (item.result as Json | null)?.is_error !== true && (item.result as Json | null)?.isError !== true;
      const result = err ? String(err.message ?? "") : mcpResultText(item.result);
      const args = item.arguments && typeof item.arguments === "object" ? (item.arguments as Record<string, unknown>) : {};
      this.calls.push(Object.freeze({ id, name: this.toolName(item), arguments: args, result, ok }));
      this.ctx.emit("tool.result", { id, tool: this.toolName(item), ok });
    } else if (item.type === "command_execution") {
      const ok = item.status === "completed" && (item.exit_code === 0 || item.exit_code === undefined);
      this.calls.push(Object.freeze({ id, name: "shell", arguments: { command: item.command ?? "" }, result: String(item.aggregated_output ?? ""), ok }));
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
      return this.result("error", new CliRunError("cli_failed", "codex", `codex reported an error (exit code ${exit.code}): ${this.failed}`, { exitCode: exit.code, stderr }), exit.code);
    }
    if (exit.code !== 0) {
      const said = tail(stderr.split(/\r?\n/).filter((l) => !/^WARNING: proceeding, even though we could not create PATH aliases/.test(l) && l.trim() !== "Reading additional input from stdin...").join("\n")) || `no output on stderr (signal ${exit.signal ?? "none"})`;
      return this.result("error", new CliRunError("cli_failed", "codex", `codex exited with code ${exit.code}: ${said}`, { exitCode: exit.code, stderr }), exit.code);
    }
    if (!this.completed) {
      return this.result("error", new CliRunError("cli_no_result", "codex", `codex exited 0 without completing its turn: ${tail(stderr) || "no output on stderr"}`, { exitCode: exit.code, stderr }), exit.code);
    }
    return this.result("complete", undefined, exit.code);
  }
}
