/**
 * @module test/cli/kit/agent-process
 * The agent's process of a durable CLI run (test/fixtures/clis/durable-cli-worker.mjs,
 * on the built package), started as a child so a test can SIGKILL it at a
 * known point and resume the run in its own process.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

const WORKER = fileURLToPath(new URL("../../fixtures/clis/durable-cli-worker.mjs", import.meta.url));

/** One event the agent's process printed. */
export interface PrintedEvent {
  readonly event: string;
  readonly data: Record<string, unknown>;
}

/** How the agent's process ended. */
export interface AgentProcessExit {
  readonly signal: NodeJS.Signals | null;
  readonly events: PrintedEvent[];
  readonly stderr: string;
}

/**
 * Start the agent's process of run `runId` on `cli` with the cognition's
 * `options` (JSON), `task` as its input, recorded in the PGlite store at
 * `storeDir`. `kill()` SIGKILLs it (only it: the CLI it spawned lives in its
 * own process group); `exited` resolves with its signal and the events it printed.
 */
export function startAgentProcess(spec: { cli: "claude" | "codex"; options: object; storeDir: string; runId: string; task: string }): {
  kill: () => void;
  exited: Promise<AgentProcessExit>;
} {
  const env = {
    ...process.env,
    CLI: spec.cli,
    CLI_OPTIONS: JSON.stringify(spec.options),
    STORE_DIR: spec.storeDir,
    RUN_ID: spec.runId,
    TASK: spec.task,
  };
  const child = spawn(process.execPath, [WORKER], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<AgentProcessExit>((resolve) =>
    child.on("exit", (_code, signal) =>
      resolve({
        signal,
        stderr,
        events: stdout
          .split("\n")
          .filter((l) => l.startsWith("{"))
          .map((l) => JSON.parse(l) as PrintedEvent),
      }),
    ),
  );
  return { kill: () => child.kill("SIGKILL"), exited };
}

/**
 * Start the agent's process (as `startAgentProcess`), hand its `kill` to
 * `arm` (the fake model calls it at the request the test chose), and wait for
 * it to die: by SIGKILL, before it printed a result.
 */
export async function agentKilledMidRun(
  spec: Parameters<typeof startAgentProcess>[0],
  arm: (kill: () => void) => void,
): Promise<AgentProcessExit> {
  const agent = startAgentProcess(spec);
  arm(agent.kill);
  const died = await agent.exited;
  expect(died.signal, died.stderr).toBe("SIGKILL");
  expect(died.events.map((e) => e.event)).not.toContain("result");
  return died;
}
