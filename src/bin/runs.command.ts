/**
 * @module bin/runs.command
 * `agentkit runs`: list the durable agent runs a store holds (the inbox's
 * store: `--inbox-store <dir>` embedded, or a PostgreSQL database by
 * `--store <url>` / `--store-env VAR`), newest change first, optionally only
 * those with one status. A run whose process crashed shows `running` or
 * `waiting` until something resumes it (`agent.resume(runId, { store })`).
 */
import { RUN_STATUSES, type RunStatus } from "../contracts/run-record.js";
import { flag, parseCommandLine, strayArgument, stringOption, type OptionTable } from "./args.js";
import { UsageError } from "./cli.error.js";
import type { FailureContext } from "./failure-line.js";
import { RUNS_HELP } from "./help.js";
import { approverStore, STORE_OPTIONS } from "./store-args.js";

const RUNS_OPTIONS: OptionTable = {
  ...STORE_OPTIONS,
  status: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

/** `agentkit runs [--status S] [--json] (--store URL | --store-env VAR | --inbox-store DIR)`; resolves with the exit code. */
export async function runsCommand(argv: readonly string[], context: FailureContext): Promise<number> {
  context.command = "runs";
  const line = parseCommandLine("runs", argv, RUNS_OPTIONS);
  if (flag(line, "help")) {
    process.stdout.write(RUNS_HELP);
    return 0;
  }
  if (line.positionals.length) throw strayArgument("runs", 1, "runs takes options only (see agentkit runs --help)");
  const status = stringOption(line, "status");
  if (status !== undefined && !(RUN_STATUSES as readonly string[]).includes(status)) {
    throw new UsageError(`agentkit runs: --status must be one of ${RUN_STATUSES.join(", ")}, got '${status}'`);
  }
  const where = approverStore("runs", line, "web");
  if (!where)
    throw new UsageError("agentkit runs: give the store the runs are in: --store <postgres-url>, --store-env VAR, or --inbox-store <dir>");
  const { openStore } = await import("./approver.js");
  const store = await openStore(where, "worker");
  try {
    const runs = await store.runs(status === undefined ? {} : { status: status as RunStatus });
    if (flag(line, "json")) process.stdout.write(`${JSON.stringify(runs)}\n`);
    else if (!runs.length) process.stdout.write(status === undefined ? "no runs\n" : `no ${status} runs\n`);
    else {
      const rows = [["RUN", "STATUS", "AGENT", "UPDATED"], ...runs.map((r) => [r.runId, r.status, r.agent, r.updatedAt])];
      const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
      process.stdout.write(rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ")).join("\n") + "\n");
    }
    return 0;
  } finally {
    await store.stop();
  }
}
