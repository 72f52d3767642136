/**
 * @module bin/approver
 * The person who answers approvals for an `agentkit` command: on this
 * terminal (`TerminalAsker`) or on the inbox page (`ApprovalInbox`, whose
 * one-time login URL is printed once, to the terminal, and nowhere else).
 */
import type { Asker } from "../contracts/elicitation.js";
import { RunContext } from "../context/run-context.js";
import { UsageError } from "./cli.error.js";

/** How approvals are answered: `tty` (this terminal), `web` (the inbox page), or `inbox` (a shared store whose page runs elsewhere). */
export type ApproveMode = "tty" | "web" | "inbox";

/** Where a `web` or `inbox` approver keeps its questions: an embedded PGlite directory, or a PostgreSQL URL. */
export type ApproverStore = { readonly dir: string } | { readonly url: string };

/** A started approver. */
export interface Approver {
  readonly mode: ApproveMode;
  /** Answers the prompts. */
  readonly asker: Asker;
  /** A context whose `gate.check` events reach the page's decisions list (web), for the asking server's `ctx`. */
  readonly ctx: RunContext;
  /** The one-time login URL (web only). Print it once, to a person (stderr); never log it. */
  readonly loginUrl?: string;
  /** A fresh one-time login URL (web only; the previous unused one stops working). */
  readonly newLoginUrl?: () => string;
  /** The store it opened (`--inbox-store`, `--store`): the served module's tasks live there too. */
  readonly store?: import("../askers/index.js").PostgresInboxStore;
  stop(): Promise<void>;
}

/** Check a `--approve` value. */
export function approveMode(command: string, value: string | undefined): ApproveMode | undefined {
  if (value === undefined) return undefined;
  if (value !== "tty" && value !== "web" && value !== "inbox") {
    throw new UsageError(
      `agentkit ${command}: --approve must be tty (this terminal), web (a page in the browser) or inbox (a shared ` +
        `store: --store), got '${value}'`,
    );
  }
  return value;
}

/**
 * Open the store an approver or an inbox page was given: as the page's (answers; default) or as a worker's (`--approve
 * inbox`: asks only).
 */
export async function openStore(
  store: ApproverStore,
  role: "worker" | "page" = "page",
): Promise<import("../askers/index.js").PostgresInboxStore> {
  const { pgliteInboxStore, postgresInboxStore } = await import("../askers/index.js");
  return "dir" in store ? pgliteInboxStore({ dataDir: store.dir }) : postgresInboxStore({ connectionString: store.url, role });
}

/**
 * Start the approver. `source` labels the questions on the page (the module
 * or command they come from); `worker`, when given, names this process on
 * each question.
 *
 * @throws AgentkitError (code `no_terminal`) for `tty` when stdin is not a terminal (the message names the web inbox).
 */
export async function startApprover(mode: ApproveMode, source: string, where?: ApproverStore, worker?: string): Promise<Approver> {
  const { TerminalAsker, ApprovalInbox, inboxAsker } = await import("../askers/index.js");
  if (mode === "tty") {
    const asker = new TerminalAsker();
    return { mode, asker, ctx: new RunContext(), stop: () => Promise.resolve() };
  }
  const store = where ? await openStore(where, mode === "inbox" ? "worker" : "page") : undefined;
  const ctx = new RunContext();
  if (mode === "inbox") {
    const asker = inboxAsker({ store: store!, source, ...(worker !== undefined ? { worker } : {}) });
    ctx.on((e) => asker.emit(e.event, e.data as Record<string, unknown>));
    return { mode, asker, ctx, store: store!, stop: () => store!.stop() };
  }
  const inbox = await ApprovalInbox.start(store ? { store } : {});
  const asker = inbox.asker({ source, ...(worker !== undefined ? { worker } : {}) });
  ctx.on((e) => asker.emit(e.event, e.data as Record<string, unknown>));
  return {
    mode,
    asker,
    ctx,
    loginUrl: inbox.loginUrl,
    ...(store ? { store } : {}),
    newLoginUrl: () => inbox.newLoginUrl(),
    stop: async () => {
      await inbox.stop();
      await store?.stop();
    },
  };
}
