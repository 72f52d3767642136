/**
 * @module bin/call.command
 * `agentkit call <tool> --args '{...}'`: call one tool of an MCP server.
 */
import type { CallToolResult } from "@modelcontextprotocol/client";
import type { CallProgress } from "../mcp/client/mcp-client.js";
import { Cancelled } from "../errors/cancelled.error.js";
import { pyList } from "../util/format.js";
import { flag, parseCommandLine, parseToolArguments, strayArgument, stringOption, type OptionTable } from "./args.js";
import { CliError, UsageError } from "./cli.error.js";
import type { MCPClient } from "../mcp/client/mcp-client.js";
import {
  configTargets,
  DEFAULT_CALL_SILENCE_MS,
  openTarget,
  TARGET_OPTIONS,
  targetOf,
  type NamedTarget,
  type Target,
} from "./connect-target.js";
import type { FailureContext } from "./failure-line.js";
import { CALL_HELP } from "./help.js";
import { oneLine, progressBar, withSpinner } from "./spinner.js";

const OPTIONS: OptionTable = {
  ...TARGET_OPTIONS,
  args: { type: "string" },
  json: { type: "boolean" },
  verbose: { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

/**
 * The text of a tool result: text blocks joined with `\n`, other blocks `[<type> content omitted]`, structured content
 * as JSON when there are no blocks.
 */
export function resultText(result: CallToolResult): string {
  const blocks = (result.content ?? []) as readonly { type: string; text?: unknown }[];
  if (!blocks.length && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return blocks.map((b) => (b.type === "text" && typeof b.text === "string" ? b.text : `[${b.type} content omitted]`)).join("\n");
}

/** The spinner's words for one progress report: a bar (or a count), or for a call the server made a task, the task and its status. */
export function progressLine(p: CallProgress): string {
  if (!p.task) return progressBar(p.progress, p.total, p.message);
  const words = p.message && p.message !== p.task.status ? `${p.task.status}: ${p.message}` : p.task.status;
  return oneLine(`task ${p.task.id.slice(0, 8)} ${words}`);
}

/** The exit code of a call the person interrupted (Ctrl-C): 128 + SIGINT, as shells report it. */
const EXIT_INTERRUPTED = 130;

/**
 * Until `stop()`: the first SIGINT (Ctrl-C) aborts `signal` — the call is
 * cancelled (`tasks/cancel` for a task, `notifications/cancelled` otherwise)
 * and the client, closing, waits for that to reach the server; a second one
 * exits at once.
 */
function interruptible(): { readonly signal: AbortSignal; readonly interrupted: () => boolean; stop(): void } {
  const abort = new AbortController();
  const onSigint = (): void => {
    if (abort.signal.aborted) process.exit(EXIT_INTERRUPTED);
    abort.abort(new Cancelled("agentkit call: interrupted (Ctrl-C)"));
  };
  process.on("SIGINT", onSigint);
  return { signal: abort.signal, interrupted: () => abort.signal.aborted, stop: () => void process.off("SIGINT", onSigint) };
}

/** `tool` as `names` holds it: itself, or the bare name of a qualified `mcp__<server>__<tool>`; `undefined` when neither is there. */
function toolNameIn(names: readonly string[], tool: string): string | undefined {
  if (names.includes(tool)) return tool;
  const bare = /^mcp__[A-Za-z0-9_-]+?__(.+)$/.exec(tool)?.[1];
  return bare && names.includes(bare) ? bare : undefined;
}

/**
 * Of the servers of an `--mcp-config` document, the one that has `tool`,
 * opened (the others are closed).
 *
 * @throws CliError when none has it (naming each server's tools); UsageError when several have it.
 */
async function serverWithTool(file: string, servers: readonly NamedTarget[], tool: string): Promise<{ target: Target; client: MCPClient }> {
  const having: Array<{ target: Target; client: MCPClient; name: string }> = [];
  const listed: string[] = [];
  for (const { name, target } of servers) {
    const client = await openTarget(target);
    const names = (await client.listTools().catch(async (err: unknown) => (await client.stop(), Promise.reject(err)))).map((t) => t.name);
    listed.push(`'${name}' (${[...names].sort().join(", ")})`);
    if (toolNameIn(names, tool) !== undefined) having.push({ target, client, name });
    else await client.stop();
  }
  if (having.length === 1) return having[0]!;
  for (const h of having) await h.client.stop();
  if (!having.length) throw new CliError(`agentkit call: no server in '${file}' has a tool '${tool}'. Its servers: ${listed.join(", ")}`);
  throw new UsageError(
    `agentkit call: servers ${pyList(having.map((h) => h.name))} of '${file}' all have a tool '${tool}'; pick one with --server <name>`,
  );
}

/** True when a listed tool's `_meta.agentkit` (what an agentkit server declares) says it requires approval. */
function needsApproval(meta: unknown): boolean {
  const declared = (meta as { agentkit?: { requires_approval?: unknown } } | undefined)?.agentkit;
  return declared?.requires_approval === true;
}

/**
 * Run `agentkit call` with `argv` (the words after `call`); resolves with the
 * exit code: 0, or 1 when the tool reported an error (its text on stderr).
 * `--args` is checked before anything is spawned or connected.
 *
 * @throws UsageError for a bad command line or bad `--args`; CliError when the server has no such tool.
 */
export async function callCommand(argv: readonly string[], context: FailureContext): Promise<number> {
  const line = parseCommandLine("call", argv, OPTIONS);
  if (flag(line, "help")) {
    process.stdout.write(CALL_HELP);
    return 0;
  }
  const [tool, ...extra] = line.positionals;
  if (!tool)
    throw new UsageError(
      `agentkit call: name the tool to call: agentkit call <tool> --args '{...}' -- <command...> (see agentkit call --help)`,
    );
  if (extra.length)
    throw strayArgument("call", 2, "pass the tool's arguments as JSON with --args '{...}', and the server command after '--'");
  const args = parseToolArguments("call", stringOption(line, "args"));
  const servers = configTargets("call", line);
  const target = servers && servers.length > 1 ? undefined : targetOf("call", line);
  context.timeoutMs = (target ?? servers![0]!.target).timeoutMs;
  const opened = target
    ? { target, client: await openTarget(target) }
    : await serverWithTool(stringOption(line, "mcp-config")!, servers!, tool);
  const client = opened.client;
  let result: CallToolResult | undefined;
  const ctrlC = interruptible();
  /** The task the server made of the call, once it did. */
  let taskId: string | undefined;
  try {
    const tools = await client.listTools();
    const names = tools.map((t) => t.name);
    const name = toolNameIn(names, tool);
    if (name === undefined)
      throw new CliError(`agentkit call: ${client.server} has no tool '${tool}'. Its tools: ${pyList([...names].sort())}`);
    // The call may wait for a person: its deadline is the silence between the
    // server's words (each progress notification restarts it), 2 minutes
    // unless --timeout-ms says otherwise.
    const silenceMs = opened.target.timeoutGiven ? opened.target.timeoutMs : DEFAULT_CALL_SILENCE_MS;
    context.timeoutMs = silenceMs;
    if (needsApproval(tools.find((t) => t.name === name)?._meta)) {
      process.stderr.write(
        `agentkit call: '${name}' needs a person's approval; waiting for their answer as long as the server keeps ` +
          `the call alive (Ctrl-C gives up)\n`,
      );
    }
    // On a terminal the server's progress notifications redraw the spinner line as a bar (a task: its id and status);
    // off one nothing is drawn.
    const onProgress = (update: (text: string) => void) => (p: CallProgress) => {
      taskId = p.task?.id ?? taskId;
      update(`calling ${name}… ${progressLine(p)}`);
    };
    result = await withSpinner(`calling ${name}…`, (update) =>
      client.callTool(name, args, { timeoutMs: silenceMs, signal: ctrlC.signal, onProgress: onProgress(update) }),
    );
  } catch (err) {
    if (!(ctrlC.interrupted() && err instanceof Cancelled)) throw err;
  } finally {
    // Closing waits (briefly) for a tasks/cancel in flight to reach the server.
    await client.stop();
    ctrlC.stop();
  }
  if (!result) {
    const told = taskId ? `tasks/cancel for task ${taskId}` : "notifications/cancelled for the call";
    process.stderr.write(`agentkit call: interrupted; the server was sent ${told}\n`);
    return EXIT_INTERRUPTED;
  }
  if (flag(line, "json")) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } else if (result.isError) {
    process.stderr.write(`${resultText(result)}\n`);
  } else {
    const text = resultText(result);
    process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  }
  return result.isError ? 1 : 0;
}
