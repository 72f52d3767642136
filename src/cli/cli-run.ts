/**
 * @module cli/cli-run
 * The part of a CLI cognition's `run` both CLIs share: spawn, feed stdout
 * lines to the cognition's stream state, and turn the ways a process ends
 * that are not the CLI's own doing (cancelled, never started, timed out)
 * into the result.
 */
import type { AgentResult, StopReason } from "../agents/agent.js";
import type { RunContext, TracedCall } from "../context/run-context.js";
import { endRequest, outgoingRequest } from "../context/run-observer.js";
import { seconds } from "../util/format.js";
import { childEnv, runCli, type CliExit, type EnvOverlay } from "./cli-process.js";
import { CliRunError } from "./cli-run.error.js";

/** What a cognition's per-run state offers `runCliCognition`. */
export interface CliStream {
  /** One stdout line; `stop()` kills the tree (the run then ends through `finish`). */
  line(line: string, stop: () => void): void;
  /** The result with what was seen so far. */
  result(stopReason: StopReason, error?: Error, exitCode?: number | null): AgentResult;
  /** The result of a process that ended by itself (or by `stop()`). */
  finish(exit: CliExit): AgentResult;
}

/** How to run one CLI. */
export interface CliInvocation {
  readonly cli: "claude" | "codex";
  readonly binary: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  readonly env?: EnvOverlay;
  readonly inheritEnv?: boolean;
  readonly timeoutMs?: number;
  /** What to install when the binary is missing (`@anthropic-ai/claude-code`). */
  readonly installHint: string;
}

/** Run `inv`, streaming into `stream`; emits `cli.exit`. Never throws. */
export async function runCliCognition(inv: CliInvocation, ctx: RunContext, stream: CliStream): Promise<AgentResult> {
  if (ctx.cancelled) return stream.result("cancelled");
  // A traced run (arc-agentkit/otel) gives the process a span, and its trace context where the CLI reads one.
  const traced = outgoingRequest(ctx, { method: "process", server: inv.cli, name: inv.cli });
  const exit = await runCli({
    binary: inv.binary,
    args: inv.args,
    cwd: inv.cwd,
    env: childEnv(withTraceEnv(inv, traced), inv.inheritEnv ?? true),
    timeoutMs: inv.timeoutMs,
    signal: ctx.signal,
    onLine: (line, stop) => stream.line(line, stop),
  });
  ctx.emit("cli.exit", { cli: inv.cli, how: exit.how, code: exit.code, signal: exit.signal });
  endRequest(traced, exit.how === "exit" && exit.code === 0);
  if (exit.how === "cancelled") return stream.result("cancelled", undefined, exit.code);
  if (exit.how === "spawn_error") {
    const why = exit.error?.message ?? "unknown error";
    return stream.result(
      "error",
      new CliRunError(
        "cli_spawn",
        inv.cli,
        `could not start the ${inv.cli} binary '${inv.binary}': ${why}. Install ${inv.installHint} or pass 'binary'`,
        { cause: exit.error },
      ),
    );
  }
  if (exit.how === "timeout") {
    const msg = `${inv.cli} did not finish within ${seconds(inv.timeoutMs ?? 0)} and was killed with its process tree`;
    return stream.result("error", new CliRunError("cli_timeout", inv.cli, msg, { stderr: exit.stderr }), exit.code);
  }
  return stream.finish(exit);
}

/**
 * `inv.env` with the trace context of a traced run laid over it: both pinned
 * CLIs read `TRACEPARENT`/`TRACESTATE` from their environment (Claude Code
 * 2.1.332 in headless mode parents its own spans on it when its telemetry is
 * on, and passes `TRACEPARENT` to the Bash commands it runs; Codex 0.171.0
 * logs "TRACEPARENT detected; continuing trace from parent context" when its
 * `[otel]` export is configured). A caller's own `TRACEPARENT` in `inv.env` wins.
 */
function withTraceEnv(inv: CliInvocation, traced: TracedCall | undefined): EnvOverlay | undefined {
  const tp = traced?.meta.traceparent;
  if (!tp) return inv.env;
  return { TRACEPARENT: tp, ...(traced.meta.tracestate ? { TRACESTATE: traced.meta.tracestate } : {}), ...(inv.env ?? {}) };
}
