/**
 * @module bin/inbox.command
 * `agentkit inbox migrate`: create (or bring up to date) the shared inbox's
 * tables in a PostgreSQL database, once per database, before workers and the
 * page use it.
 */
import { checkSchemaName } from "../askers/inbox/postgres-schema.js";
import { migrateInboxStore } from "../askers/inbox/postgres-store.js";
import { flag, parseCommandLine, stringOption, type OptionTable } from "./args.js";
import { UsageError } from "./cli.error.js";
import type { FailureContext } from "./failure-line.js";
import { INBOX_HELP } from "./help.js";

const OPTIONS: OptionTable = {
  "store-env": { type: "string" },
  schema: { type: "string" },
  verbose: { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

/**
 * The database URL: the positional (which must hold no password: argv is
 * readable by every user of the machine), or the variable `--store-env` names.
 * A password goes in that variable or in `PGPASSWORD` (read by `pg` itself).
 */
export function storeUrl(command: string, positional: string | undefined, storeEnv: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if ((positional === undefined) === (storeEnv === undefined)) {
    throw new UsageError(`agentkit ${command}: give the database as one postgres:// URL or as --store-env VAR (a variable holding it)`);
  }
  const url = positional ?? env[storeEnv!];
  if (url === undefined || url === "") throw new UsageError(`agentkit ${command}: --store-env ${storeEnv}: the variable is not set`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`agentkit ${command}: the database must be a postgres:// or postgresql:// URL`);
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") throw new UsageError(`agentkit ${command}: the database must be a postgres:// or postgresql:// URL, got ${parsed.protocol}//...`);
  if (positional !== undefined && parsed.password) {
    throw new UsageError(`agentkit ${command}: the URL holds a password, and a command line is visible to every user of this machine: put the URL in a variable and pass --store-env VAR, or the password in PGPASSWORD`);
  }
  return url;
}

/**
 * Run `agentkit inbox <subcommand>` with `argv` (the words after `inbox`);
 * resolves with the exit code.
 *
 * @throws UsageError for a bad command line; InboxStoreError when the database cannot be reached.
 */
export async function inboxCommand(argv: readonly string[], context: FailureContext): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === "--help" || sub === "-h") {
    (sub === undefined ? process.stderr : process.stdout).write(INBOX_HELP);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== "migrate") throw new UsageError(`agentkit inbox: unknown subcommand '${sub}'. Subcommands: migrate (see agentkit inbox --help)`);
  context.command = "inbox migrate";
  const line = parseCommandLine("inbox migrate", rest, OPTIONS);
  if (flag(line, "help")) {
    process.stdout.write(INBOX_HELP);
    return 0;
  }
  if (line.positionals.length > 1) throw new UsageError(`agentkit inbox migrate: unexpected argument '${line.positionals[1]}'`);
  const connectionString = storeUrl("inbox migrate", line.positionals[0], stringOption(line, "store-env"));
  const schema = stringOption(line, "schema");
  if (schema !== undefined) {
    try {
      checkSchemaName(schema, "agentkit inbox migrate");
    } catch (err) {
      throw new UsageError(`agentkit inbox migrate: --schema must be a lower-case SQL identifier (letters, digits, _; at most 63), got ${JSON.stringify(schema)}`, { cause: err });
    }
  }
  const version = await migrateInboxStore({ connectionString, ...(schema !== undefined ? { schema } : {}) });
  process.stdout.write(`inbox tables ready in schema '${schema ?? "agentkit_inbox"}' (version ${version})\n`);
  return 0;
}
