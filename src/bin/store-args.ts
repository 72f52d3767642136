/**
 * @module bin/store-args
 * Where an inbox keeps its questions, from a command line: a PostgreSQL URL
 * (`<url>` or `--store`, never holding a password: argv is readable by every
 * user of the machine; or `--store-env VAR`) or an embedded PGlite directory
 * (`--inbox-store <dir>`).
 */
import { dataDirProblem } from "../askers/inbox/data-dir.js";
import type { ApproveMode, ApproverStore } from "./approver.js";
import { stringOption, type CommandLine, type OptionTable } from "./args.js";
import { UsageError } from "./cli.error.js";

/** The options naming a store on a command line: `--store URL`, `--store-env VAR`, `--inbox-store DIR` (read by `approverStore`). */
export const STORE_OPTIONS: OptionTable = {
  store: { type: "string" },
  "store-env": { type: "string" },
  "inbox-store": { type: "string" },
};

/**
 * The database URL: the positional (which must hold no password: argv is
 * readable by every user of the machine), or the variable `--store-env` names.
 * A password goes in that variable or in `PGPASSWORD` (read by `pg` itself).
 */
export function storeUrl(
  command: string,
  positional: string | undefined,
  storeEnv: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string {
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
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:")
    throw new UsageError(`agentkit ${command}: the database must be a postgres:// or postgresql:// URL, got ${parsed.protocol}//...`);
  if (positional !== undefined && parsed.password) {
    throw new UsageError(
      `agentkit ${command}: the URL holds a password, and a command line is visible to every user of this machine: ` +
        `put the URL in a variable and pass --store-env VAR, or the password in PGPASSWORD`,
    );
  }
  return url;
}

/**
 * The store `--approve` was given: `--inbox-store <dir>` (embedded, for
 * `web`: the page and its askers in this process) or `--store <url>` /
 * `--store-env VAR` (PostgreSQL, for `web` and `inbox`; `inbox` needs it).
 *
 * @throws UsageError for a combination that cannot work, naming what can.
 */
export function approverStore(command: string, line: CommandLine, approve: ApproveMode | undefined): ApproverStore | undefined {
  const dir = stringOption(line, "inbox-store");
  const url = stringOption(line, "store");
  const env = stringOption(line, "store-env");
  if (dir === undefined && url === undefined && env === undefined) {
    if (approve === "inbox")
      throw new UsageError(
        `agentkit ${command}: --approve inbox asks through a shared store: give --store <postgres-url> or --store-env VAR`,
      );
    return undefined;
  }
  // Without --approve the store holds the served module's MCP tasks only.
  if (approve === "tty")
    throw new UsageError(
      `agentkit ${command}: --inbox-store, --store and --store-env go with --approve web or --approve inbox (or ` +
        `without --approve: the module's MCP tasks only)`,
    );
  if (dir !== undefined) {
    if (url !== undefined || env !== undefined)
      throw new UsageError(`agentkit ${command}: give one store: --inbox-store <dir> (embedded) or --store / --store-env (PostgreSQL)`);
    if (approve === "inbox")
      throw new UsageError(
        `agentkit ${command}: --approve inbox needs a store other processes reach (--store <postgres-url>); ` +
          `--inbox-store <dir> is for --approve web`,
      );
    const problem = dir === "" ? "no directory was given" : dataDirProblem(dir);
    if (problem)
      throw new UsageError(
        `agentkit ${command}: --inbox-store '${dir}' cannot hold the inbox's database: ${problem}. Give a ` +
          `directory you can write (it is created when missing)`,
      );
    return { dir };
  }
  return { url: storeUrl(command, url, env) };
}
