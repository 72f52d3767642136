/**
 * @module cli/claude-cli.cognition
 * `ClaudeCliCognition`: hands the whole agent loop to the Claude Code CLI
 * (`claude -p --output-format stream-json --verbose`) and turns its event
 * stream into the agent's events and result.
 */
import { randomUUID } from "node:crypto";
import { checkOptions, opt, type OptionRule } from "../options/option-checks.js";
import { CLI_SPAWN_RULES, isPlainObject, modelRule, stringOrList } from "./cli-option-rules.js";
import type { AgentResult, Cognition, CognitionInput, StopReason, ToolCallRecord } from "../agents/agent.js";
import type { RunContext } from "../context/run-context.js";
import type { CliExit, EnvOverlay } from "./cli-process.js";
import { CliRunError, mcpNotConnected, tail } from "./cli-run.error.js";
import { runCliCognition, type CliStream } from "./cli-run.js";
import type { CliAgentDefinition } from "./cli-agents.js";
import { contentText } from "../wire/content.js";
import type { DurableSpec } from "../agents/run-journal.js";
import { DEFAULT_RESUME_PROMPT, endOrphanedSession, SESSION_MARK_ENV } from "./cli-session.js";

/** Options of `ClaudeCliCognition`. `spec.cliOptions()`, `approvals.cliOptions()` and `hooks.cliOptions()` spread into it. */
export interface ClaudeCliOptions {
  /** `--model`: an alias (`sonnet`) or a full model id, passed through verbatim. */
  readonly model: string;
  /** The binary to spawn (spawned directly, never through a shell or npx). Default `"claude"`, found on PATH. */
  readonly binary?: string;
  /** The working directory of the CLI. Default: this process's cwd. */
  readonly cwd?: string;
  /**
   * Variables laid over `process.env` for the child (an `undefined` value
   * removes one). The child sees this process's whole environment plus these,
   * unless `inheritEnv` is false.
   */
  readonly env?: EnvOverlay;
  /** Start the child from `process.env` (default true) or from `env` alone. */
  readonly inheritEnv?: boolean;
  /** Kill the CLI and its whole process tree after this long; the run ends `"error"` (`cli_timeout`). Default: no deadline. */
  readonly timeoutMs?: number;
  /**
   * `--mcp-config`: each entry a file path or an inline JSON document
   * (`{"mcpServers":{...}}`). Argv is world-readable: a document holding a
   * token belongs in a 0600 file named here (what `cliOptions()` hands over),
   * or its header as `"Bearer ${VAR}"` with `VAR` in `env`.
   */
  readonly mcpConfig?: string | readonly string[];
  /** `--strict-mcp-config`: ignore every MCP server not in `mcpConfig` (a project `.mcp.json`, the user's config). */
  readonly strictMcpConfig?: boolean;
  /** `--permission-prompt-tool`: the MCP tool (`mcp__<server>__<tool>`) the CLI asks instead of a terminal. */
  readonly permissionPromptTool?: string;
  /** `--allowedTools`: tools (or patterns such as `Bash(git *)`) that run without asking. */
  readonly allowedTools?: readonly string[];
  /** `--disallowedTools`: tools removed from the model's list entirely. */
  readonly disallowedTools?: readonly string[];
  /**
   * `--tools`: `false` disables every built-in tool (`--tools ""`, the model sees only MCP tools); a list keeps only
   * those. Default: the CLI's own set.
   */
  readonly builtinTools?: boolean | readonly string[];
  /** `--setting-sources`: which of `user`, `project`, `local` to load; `""` (or `[]`) loads none. Default: the CLI's (all). */
  readonly settingSources?: string | readonly string[];
  /** `--settings`: a settings document (object, JSON text) or a file path; e.g. `hookSettings(...)`. */
  readonly settings?: string | object;
  /** `--agents`: subagent definitions (`asCliAgents(...)`), as an object or JSON text. */
  readonly agents?: string | Readonly<Record<string, CliAgentDefinition>>;
  /** `--permission-mode` (`default`, `acceptEdits`, `plan`, `dontAsk`, `bypassPermissions`, ...). */
  readonly permissionMode?: string;
  /** Extra arguments placed before the prompt, verbatim. */
  readonly extraArgs?: readonly string[];
  /**
   * What a resumed durable run (`agent.resume`) tells the CLI when it goes on
   * with `--resume <session-id>` (the CLI needs a new user message). Default:
   * a line saying the process stopped and to continue from where it stopped.
   */
  readonly resumePrompt?: string;
}

/** The session flags of one run: a new session under our id, or the recorded one resumed. */
export interface ClaudeSessionArgs {
  /** The session id (a UUID). */
  readonly id: string;
  /** `true`: `--resume <id>`; `false`: `--session-id <id>`. */
  readonly resume: boolean;
}

/** The options a `ClaudeCliCognition` accepts, declared once. */
const CLAUDE_CLI_OPTIONS = {
  model: modelRule('an alias such as "sonnet" or a full model id'),
  ...CLI_SPAWN_RULES,
  mcpConfig: stringOrList(),
  strictMcpConfig: opt.boolean(),
  permissionPromptTool: opt.string("an MCP tool name such as mcp__approvals__approve", true),
  allowedTools: opt.stringArray(),
  disallowedTools: opt.stringArray(),
  builtinTools: opt.that<boolean | readonly string[]>(
    (v) => v === false || v === true || (Array.isArray(v) && v.every((x) => typeof x === "string")),
    "false (no built-in tools), true, or an array of tool names",
  ),
  settingSources: stringOrList(),
  settings: opt.that<string | object>((v) => typeof v === "string" || isPlainObject(v), "a settings object, its JSON text or a file path"),
  agents: opt.that<string | object>(
    (v) => typeof v === "string" || isPlainObject(v),
    "an object of subagent definitions (asCliAgents(...)) or its JSON text",
  ),
  permissionMode: opt.string('a permission mode such as "default" or "dontAsk"', true),
} satisfies Record<keyof ClaudeCliOptions, OptionRule<unknown>>;

/** One MCP server as the CLI's `system/init` event reports it. */
export interface CliMcpServerStatus {
  readonly name: string;
  readonly status: string;
}

type Json = Record<string, unknown>;

function asList(v: string | readonly string[] | undefined): string[] {
  if (v === undefined) return [];
  return typeof v === "string" ? [v] : [...v];
}

function jsonArg(v: string | object): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** Text of a tool_result's `content` (a string, or blocks whose text parts are joined). */
function resultContent(content: unknown): string {
  return contentText(content, "");
}

const USAGE_KEYS: Record<string, string> = {
  input_tokens: "inputTokens",
  output_tokens: "outputTokens",
  cache_creation_input_tokens: "cacheCreationInputTokens",
  cache_read_input_tokens: "cacheReadInputTokens",
};

/**
 * The Claude Code CLI as an agent's cognition. Each `run` spawns the binary
 * once, in print mode: `claude -p --output-format stream-json --verbose
 * [flags] -- <task>`, stdin closed, in its own process group, with the
 * agent's `prompt` (when set) as `--append-system-prompt`.
 *
 * Events emitted on `ctx`: `cli.init` (session, model, tools, MCP servers,
 * agents), `llm.turn` per assistant message, `tool.call` per tool use,
 * `tool.result` per tool result (`ok` false for an error or a denial),
 * `cli.retry` per API retry, `cli.denial` `{ cli, tool, id }` per permission
 * denial the final result lists (never its input), `cli.exit` at the end.
 *
 * The run never throws; failures end in `stopReason: "error"` with a
 * `CliRunError` on `error`: an MCP server the init event shows as anything
 * but `connected` stops the run at once (code `cli_mcp_not_connected`: the
 * CLI itself would carry on without the tools and exit 0), an error result or
 * a non-zero exit carries the CLI's own message, `timeoutMs` kills the tree
 * (`cli_timeout`). Cancelling `ctx` kills the tree too and ends `"cancelled"`.
 *
 * `details` holds `sessionId`, `permissionDenials` (`{ toolName, toolUseId,
 * toolInput }` for every call the CLI refused), `costUsd`, `durationMs`,
 * `numTurns`, `mcpServers`, `exitCode`, `stderr` (its last 20 lines).
 *
 * Durable runs (`agent.run(input, { store })`): the run's session id (a new
 * UUID, passed as `--session-id`) is recorded in the store before the CLI
 * starts; `agent.resume` goes on with `--resume <session-id>` and
 * `resumePrompt`. Claude Code keeps the session under `$HOME/.claude/projects/`
 * (measured on 2.1.332): the resumed request carries the whole conversation
 * so far, finished tool results included (nothing is run or requested
 * again); a model turn that was cut off is closed by the CLI with a
 * placeholder assistant message. A CLI the dead worker left running on the
 * session (same machine) is ended before the resume starts. The resumed
 * run's `toolCalls` and `steps` are those of the resumed process only.
 */
export class ClaudeCliCognition implements Cognition {
  readonly options: ClaudeCliOptions;

  /**
   * @throws OptionsError for an unknown option, a missing required one or a
   *   value of the wrong kind (or `null` options), naming what is accepted.
   */
  constructor(options: ClaudeCliOptions) {
    checkOptions(options, "ClaudeCliCognition", CLAUDE_CLI_OPTIONS);
    this.options = Object.freeze({ ...options });
  }

  /** The binary that `run` spawns. */
  get binary(): string {
    return this.options.binary ?? "claude";
  }

  /** What a durable run records and a resume compares: no local tools (the CLI owns its loop), the CLI and its model. */
  get durable(): DurableSpec {
    return { tools: [], cognition: { cli: "claude", model: this.options.model } };
  }

  /** The argument vector for `task` (without the binary), in the order `run` passes it; `session` adds `--session-id` or `--resume`. */
  args(task: string, systemPrompt = "", session?: ClaudeSessionArgs): string[] {
    const o = this.options;
    const a = ["-p", "--output-format", "stream-json", "--verbose", "--model", o.model];
    const mcp = asList(o.mcpConfig);
    if (mcp.length) a.push("--mcp-config", ...mcp);
    if (o.strictMcpConfig) a.push("--strict-mcp-config");
    if (o.permissionPromptTool) a.push("--permission-prompt-tool", o.permissionPromptTool);
    if (o.allowedTools?.length) a.push("--allowedTools", ...o.allowedTools);
    if (o.disallowedTools?.length) a.push("--disallowedTools", ...o.disallowedTools);
    if (o.builtinTools === false) a.push("--tools", "");
    else if (Array.isArray(o.builtinTools)) a.push("--tools", o.builtinTools.length ? o.builtinTools.join(",") : "");
    if (o.settingSources !== undefined) a.push("--setting-sources", asList(o.settingSources).join(","));
    if (o.settings !== undefined) a.push("--settings", jsonArg(o.settings));
    if (o.agents !== undefined) a.push("--agents", jsonArg(o.agents));
    if (o.permissionMode) a.push("--permission-mode", o.permissionMode);
    if (systemPrompt) a.push("--append-system-prompt", systemPrompt);
    if (session) a.push(session.resume ? "--resume" : "--session-id", session.id);
    if (o.extraArgs?.length) a.push(...o.extraArgs);
    // "--" ends the variadic flags (--mcp-config, --allowedTools, ...), so the task is never read as one of their values.
    a.push("--", task);
    return a;
  }

  /** Runs `task` in the Claude Code CLI (one `claude -p` process), with this agent's tools served to it, and answers its final text; on a durable run, records the CLI's session id and resumes it. */
  async run({ task, agent, ctx, journal }: CognitionInput): Promise<AgentResult> {
    const o = this.options;
    let session: ClaudeSessionArgs | undefined;
    if (journal) {
      const had = journal.cliSession;
      if (had) {
        session = { id: had.sessionId, resume: true };
        const ended = await endOrphanedSession(had.sessionId);
        if (ended.length) ctx.emit("cli.orphan_ended", { cli: "claude", sessionId: had.sessionId, pids: ended });
      } else {
        // Recorded before the CLI starts: a crash at any later point leaves a session to resume.
        session = { id: randomUUID(), resume: false };
        await journal.recordCliSession({ cli: "claude", sessionId: session.id });
      }
    }
    const prompt = session?.resume ? (o.resumePrompt ?? DEFAULT_RESUME_PROMPT) : task;
    return runCliCognition(
      {
        cli: "claude",
        binary: this.binary,
        args: this.args(prompt, agent.prompt, session),
        cwd: o.cwd,
        env: session ? { ...o.env, [SESSION_MARK_ENV]: session.id } : o.env,
        inheritEnv: o.inheritEnv,
        timeoutMs: o.timeoutMs,
        installHint: "@anthropic-ai/claude-code",
      },
      ctx,
      new ClaudeStream(ctx),
    );
  }
}

/** The state of one stream-json run. */
class ClaudeStream implements CliStream {
  private readonly calls: ToolCallRecord[] = [];
  private readonly pending = new Map<string, { name: string; input: Json }>();
  private readonly usage: Record<string, number> = {};
  private lastText = "";
  private steps = 0;
  private final?: Json;
  private notConnected?: CliMcpServerStatus;
  private mcpServers: CliMcpServerStatus[] = [];
  private sessionId?: string;
  private stderr = "";

  constructor(private readonly ctx: RunContext) {}

  line(line: string, stop: () => void): void {
    let ev: Json;
    try {
      ev = JSON.parse(line) as Json;
    } catch {
      return; // not an event (a stray log line)
    }
    if (!ev || typeof ev !== "object") return;
    switch (ev.type) {
      case "system":
        return this.system(ev, stop);
      case "assistant":
        return this.assistant(ev);
      case "user":
        return this.user(ev);
      case "result":
        this.final = ev;
        // Denials by name and id only: the input stays in the result's details, off the broadcast.
        for (const d of this.denials()) this.ctx.emit("cli.denial", { cli: "claude", tool: d.toolName, id: d.toolUseId });
        return;
      default:
        return;
    }
  }

  private system(ev: Json, stop: () => void): void {
    if (ev.subtype === "init") {
      this.sessionId = typeof ev.session_id === "string" ? ev.session_id : undefined;
      this.mcpServers = Array.isArray(ev.mcp_servers)
        ? (ev.mcp_servers as Json[]).map((s) => ({ name: String(s.name), status: String(s.status) }))
        : [];
      this.ctx.emit("cli.init", {
        cli: "claude",
        sessionId: this.sessionId ?? null,
        model: ev.model ?? null,
        tools: ev.tools ?? [],
        mcpServers: this.mcpServers,
        agents: ev.agents ?? [],
        version: ev.claude_code_version ?? null,
      });
      const bad = this.mcpServers.find((s) => s.status !== "connected");
      if (bad && !this.notConnected) {
        this.notConnected = bad;
        stop();
      }
    } else if (ev.subtype === "api_retry") {
      this.ctx.emit("cli.retry", {
        cli: "claude",
        attempt: ev.attempt ?? null,
        maxRetries: ev.max_retries ?? null,
        error: ev.error ?? null,
      });
    }
  }

  private assistant(ev: Json): void {
    const msg = (ev.message ?? {}) as Json;
    const content = Array.isArray(msg.content) ? (msg.content as Json[]) : [];
    const parent = typeof ev.parent_tool_use_id === "string" ? ev.parent_tool_use_id : null;
    const text = content
      .filter((b) => b.type === "text")
      .map((b) => String(b.text ?? ""))
      .join("");
    const uses = content.filter((b) => b.type === "tool_use");
    if (!parent) {
      this.steps++;
      if (text) this.lastText = text;
    }
    this.ctx.emit("llm.turn", {
      step: this.steps,
      content: text,
      toolCalls: uses.map((u) => String(u.name)),
      ...(parent ? { parentToolUseId: parent } : {}),
    });
    for (const u of uses) {
      const id = String(u.id);
      const input = (u.input && typeof u.input === "object" ? u.input : {}) as Json;
      this.pending.set(id, { name: String(u.name), input });
      this.ctx.emit("tool.call", { id, tool: String(u.name), ...(parent ? { parentToolUseId: parent } : {}) });
    }
  }

  private user(ev: Json): void {
    const msg = (ev.message ?? {}) as Json;
    const content = Array.isArray(msg.content) ? (msg.content as Json[]) : [];
    for (const b of content) {
      if (b.type !== "tool_result") continue;
      const id = String(b.tool_use_id);
      const use = this.pending.get(id);
      this.pending.delete(id);
      const ok = b.is_error !== true;
      const name = use?.name ?? "unknown";
      this.calls.push(Object.freeze({ id, name, arguments: use?.input ?? {}, result: resultContent(b.content), ok }));
      this.ctx.emit("tool.result", { id, tool: name, ok });
    }
  }

  private denials(): { toolName: string; toolUseId: string; toolInput: unknown }[] {
    const raw = this.final?.permission_denials;
    return Array.isArray(raw)
      ? (raw as Json[]).map((d) => ({ toolName: String(d.tool_name), toolUseId: String(d.tool_use_id), toolInput: d.tool_input ?? {} }))
      : [];
  }

  result(stopReason: StopReason, error?: Error, exitCode: number | null = null): AgentResult {
    const f = this.final;
    if (f?.usage && typeof f.usage === "object") {
      for (const [k, v] of Object.entries(f.usage as Json)) if (typeof v === "number" && USAGE_KEYS[k]) this.usage[USAGE_KEYS[k]] = v;
    }
    const details = Object.freeze({
      sessionId: this.sessionId ?? (typeof f?.session_id === "string" ? f.session_id : null),
      permissionDenials: this.denials(),
      costUsd: typeof f?.total_cost_usd === "number" ? f.total_cost_usd : null,
      durationMs: typeof f?.duration_ms === "number" ? f.duration_ms : null,
      numTurns: typeof f?.num_turns === "number" ? f.num_turns : null,
      mcpServers: this.mcpServers,
      exitCode,
      stderr: this.stderr,
    });
    const output = f && typeof f.result === "string" && f.is_error !== true ? f.result : this.lastText;
    return Object.freeze({
      output,
      stopReason,
      steps: typeof f?.num_turns === "number" ? f.num_turns : this.steps,
      toolCalls: Object.freeze([...this.calls]),
      usage: Object.freeze({ ...this.usage }),
      details,
      ...(error ? { error } : {}),
    });
  }

  finish(exit: CliExit): AgentResult {
    this.stderr = tail(exit.stderr, 20);
    const f = this.final;
    const stderr = exit.stderr;
    if (this.notConnected)
      return this.result("error", mcpNotConnected("claude", this.notConnected.name, this.notConnected.status, stderr), exit.code);
    if (f && f.is_error === true) {
      const said =
        typeof f.result === "string" && f.result
          ? f.result
          : Array.isArray(f.errors)
            ? (f.errors as unknown[]).join("; ")
            : String(f.subtype ?? "error");
      const stop: StopReason = f.subtype === "error_max_turns" ? "max_steps" : "error";
      return this.result(
        stop,
        new CliRunError("cli_failed", "claude", `claude reported an error (exit code ${exit.code}): ${said}`, {
          exitCode: exit.code,
          stderr,
        }),
        exit.code,
      );
    }
    if (exit.code !== 0) {
      const said = tail(stderr) || `no output on stderr (signal ${exit.signal ?? "none"})`;
      return this.result(
        "error",
        new CliRunError("cli_failed", "claude", `claude exited with code ${exit.code}: ${said}`, { exitCode: exit.code, stderr }),
        exit.code,
      );
    }
    if (!f) {
      return this.result(
        "error",
        new CliRunError("cli_no_result", "claude", `claude exited 0 without a result event: ${tail(stderr) || "no output on stderr"}`, {
          exitCode: exit.code,
          stderr,
        }),
        exit.code,
      );
    }
    if (f.subtype === "error_max_turns") return this.result("max_steps", undefined, exit.code);
    return this.result("complete", undefined, exit.code);
  }
}
