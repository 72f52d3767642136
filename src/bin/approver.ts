/**
 * @module bin/approver
 * The person who answers approvals for an `agentkit` command: on this
 * terminal (`TerminalAsker`) or on the inbox page (`ApprovalInbox`, whose
 * one-time login URL is printed once, to the terminal, and nowhere else).
 */
import type { Asker } from "../agents/elicitation.js";
import { RunContext } from "../context/run-context.js";
import { UsageError } from "./cli.error.js";

/** How approvals are answered: `tty` (this terminal) or `web` (the inbox page). */
export type ApproveMode = "tty" | "web";

/** A started approver. */
export interface Approver {
  readonly mode: ApproveMode;
  /** Answers the prompts. */
  readonly asker: Asker;
  /** A context whose `gate.check` events reach the page's decisions list (web), for the asking server's `ctx`. */
  readonly ctx: RunContext;
  /** The one-time login URL (web only). Print it once, to a person; never log it. */
  readonly loginUrl?: string;
  stop(): Promise<void>;
}

/** Check a `--approve` value. */
export function approveMode(command: string, value: string | undefined): ApproveMode | undefined {
  if (value === undefined) return undefined;
  if (value !== "tty" && value !== "web") throw new UsageError(`agentkit ${command}: --approve must be tty (this terminal) or web (a page in the browser), got '${value}'`);
  return value;
}

/**
 * Start the approver. `source` labels the questions on the page (the module
 * or command they come from).
 *
 * @throws NoTerminalError for `tty` when stdin is not a terminal (the message names the web inbox).
 */
export async function startApprover(mode: ApproveMode, source: string): Promise<Approver> {
  const { TerminalAsker, ApprovalInbox } = await import("../askers/index.js");
  if (mode === "tty") {
    const asker = new TerminalAsker();
    return { mode, asker, ctx: new RunContext(), stop: () => Promise.resolve() };
  }
  const inbox = await ApprovalInbox.start();
  const asker = inbox.asker({ source });
  const ctx = new RunContext();
  ctx.on((e) => asker.emit(e.event, e.data as Record<string, unknown>));
  return { mode, asker, ctx, loginUrl: inbox.loginUrl, stop: () => inbox.stop() };
}
