/**
 * @module bin/login-key
 * A key in the terminal that serves an inbox page: Enter prints a fresh
 * one-time login link on stderr, for a reviewer who closed the tab, whose
 * session expired, or a second reviewer — nothing restarts. Only the person
 * at that terminal can press it: a process the agent starts (same user,
 * another terminal) cannot type into it, so the fence stays where it was.
 */
import { createInterface } from "node:readline";

/** The line that tells the person the key exists. */
export function loginKeyHint(): string {
  return "  press Enter here for a new one-time login link (a closed tab, an expired session, a second reviewer)";
}

/**
 * While the returned function is not called, each line typed on this
 * process's terminal prints `newLoginUrl()` on stderr, prefixed by
 * `command`. Does nothing (and returns a no-op) when stdin is not a
 * terminal: a pipe is no person. The link goes to stderr only, never stdout
 * or a log.
 */
export function offerNewLogins(command: string, newLoginUrl: () => string): () => void {
  if (!process.stdin.isTTY) return () => undefined;
  const lines = createInterface({ input: process.stdin, terminal: false });
  lines.on("line", () => {
    try {
      process.stderr.write(`agentkit ${command}: a new one-time login link (the previous unused one no longer works): ${newLoginUrl()}\n`);
    } catch (err) {
      process.stderr.write(`agentkit ${command}: no new login link: ${(err as Error).message}\n`);
    }
  });
  return () => {
    lines.close();
    process.stdin.pause();
  };
}
