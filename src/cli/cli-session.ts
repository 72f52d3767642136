/**
 * @module cli/cli-session
 * What the CLI cognitions share for durable runs (`agent.run(input, { store
 * })`): the prompt a resumed CLI session is handed, the mark every process of
 * a run's CLI session carries in its environment, and ending the CLI a dead
 * worker left running on that session before a resume takes it over.
 */
import { findProcessesWithEnv, killTree, waitPidsGone } from "../wire/process-tree.js";

/** What a resumed CLI session is told when `resumePrompt` is not set. */
export const DEFAULT_RESUME_PROMPT =
  "The process running this task stopped before the task was finished. Continue the task from where it stopped; do not repeat steps that already finished.";

/** The environment variable marking every process of a durable run's CLI session (its value: the session's mark, a UUID). */
export const SESSION_MARK_ENV = "AGENTKIT_CLI_SESSION";

/** How long a resume waits for a left-over CLI to be gone (it holds the session: Codex refuses a second writer). */
const ORPHAN_GONE_MS = 5_000;

/**
 * End every live process on this machine marked with `mark` (the CLI a
 * worker that died left running, and what it started: it is not in this
 * process's tree, and two CLIs must not write one session), and wait until
 * they are gone. Linux only (reads /proc); elsewhere nothing is found.
 * Resolves with the pids it ended.
 */
export async function endOrphanedSession(mark: string): Promise<number[]> {
  const pids = findProcessesWithEnv(`${SESSION_MARK_ENV}=${mark}`);
  for (const pid of pids) killTree(pid);
  if (pids.length) await waitPidsGone(pids, ORPHAN_GONE_MS);
  return pids;
}
