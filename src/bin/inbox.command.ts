/**
 * @module bin/inbox.command
 * `agentkit inbox migrate`: create (or bring up to date) the shared inbox's
 * tables in a PostgreSQL database, once per database, before workers and the
 * page use it, and the two roles whose members are the workers' logins and
 * the page's.
 */
import { checkSchemaName, DEFAULT_INBOX_SCHEMA, inboxRoles } from "../askers/inbox/postgres-schema.js";
import { migrateInboxStore } from "../askers/inbox/postgres-store.js";
import { flag, parseCommandLine, strayArgument, stringOption, type OptionTable } from "./args.js";
import { UsageError } from "./cli.error.js";
import { isPort } from "../options/option-checks.js";
import { approverStore, STORE_OPTIONS, storeUrl } from "./store-args.js";
import type { FailureContext } from "./failure-line.js";
import { INBOX_HELP } from "./help.js";
import { loginKeyHint, offerNewLogins } from "./login-key.js";

const SERVE_OPTIONS: OptionTable = {
  ...STORE_OPTIONS,
  port: { type: "string" },
  verbose: { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

/**
 * `agentkit inbox serve`: only the page, on a shared store the workers ask
 * through (`agentkit serve ... --approve inbox --store <url>`), until SIGINT
 * or SIGTERM. The one-time login URL is printed once, on stderr; Enter on
 * the terminal prints a fresh one.
 */
async function servePage(argv: readonly string[], context: FailureContext): Promise<number> {
  context.command = "inbox serve";
  const line = parseCommandLine("inbox serve", argv, SERVE_OPTIONS);
  if (flag(line, "help")) {
    process.stdout.write(INBOX_HELP);
    return 0;
  }
  if (line.positionals.length) throw strayArgument("inbox serve", 1, "inbox serve takes options only (see agentkit inbox --help)");
  const where = approverStore("inbox serve", line, "web");
  if (!where)
    throw new UsageError("agentkit inbox serve: give the shared store: --store <postgres-url>, --store-env VAR, or --inbox-store <dir>");
  const portText = stringOption(line, "port");
  const port = portText === undefined ? 0 : Number(portText);
  if (!isPort(port)) throw new UsageError(`agentkit inbox serve: --port must be an integer 0-65535, got '${portText}'`);
  const { ApprovalInbox } = await import("../askers/index.js");
  const { openStore } = await import("./approver.js");
  const store = await openStore(where);
  try {
    const inbox = await ApprovalInbox.start({ store, port });
    try {
      const key = process.stdin.isTTY ? `\n${loginKeyHint()}` : "";
      process.stderr.write(
        `agentkit inbox serve: the approval inbox is at ${inbox.url}\n  log in once with: ${inbox.loginUrl}\n  (a ` +
          `one-time link, printed only here; Ctrl-C stops)${key}\n`,
      );
      const stopOffering = offerNewLogins("inbox serve", () => inbox.newLoginUrl());
      await new Promise<void>((resolve) => {
        process.once("SIGINT", () => resolve());
        process.once("SIGTERM", () => resolve());
      }).finally(stopOffering);
    } finally {
      await inbox.stop();
    }
  } finally {
    await store.stop();
  }
  return 0;
}

const OPTIONS: OptionTable = {
  "store-env": { type: "string" },
  schema: { type: "string" },
  verbose: { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

/**
 * Run `agentkit inbox <subcommand>` with `argv` (the words after `inbox`);
 * resolves with the exit code.
 *
 * @throws UsageError for a bad command line; InboxError (code `inbox_store`) when the database cannot be reached.
 */
export async function inboxCommand(argv: readonly string[], context: FailureContext): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === "--help" || sub === "-h") {
    (sub === undefined ? process.stderr : process.stdout).write(INBOX_HELP);
    return sub === undefined ? 2 : 0;
  }
  if (sub === "serve") return servePage(rest, context);
  if (sub !== "migrate")
    throw new UsageError(`agentkit inbox: unknown subcommand '${sub}'. Subcommands: migrate, serve (see agentkit inbox --help)`);
  context.command = "inbox migrate";
  const line = parseCommandLine("inbox migrate", rest, OPTIONS);
  if (flag(line, "help")) {
    process.stdout.write(INBOX_HELP);
    return 0;
  }
  if (line.positionals.length > 1)
    throw strayArgument("inbox migrate", 2, "inbox migrate takes one store path at most (see agentkit inbox --help)");
  const connectionString = storeUrl("inbox migrate", line.positionals[0], stringOption(line, "store-env"));
  const schema = stringOption(line, "schema");
  if (schema !== undefined) {
    try {
      checkSchemaName(schema, "agentkit inbox migrate");
    } catch (err) {
      throw new UsageError(
        `agentkit inbox migrate: --schema must be a lower-case SQL identifier (letters, digits, _; at most 63), ` +
          `got ${JSON.stringify(schema)}`,
        { cause: err },
      );
    }
  }
  const version = await migrateInboxStore({ connectionString, ...(schema !== undefined ? { schema } : {}) });
  const roles = inboxRoles(schema ?? DEFAULT_INBOX_SCHEMA);
  process.stdout.write(
    `inbox tables ready in schema '${schema ?? DEFAULT_INBOX_SCHEMA}' (version ${version})\n` +
      `  workers log in as members of ${roles.worker} (ask, read their own): GRANT ${roles.worker} TO <worker login>\n` +
      `  the page logs in as a member of ${roles.page} (reads all, answers): GRANT ${roles.page} TO <page login>\n`,
  );
  return 0;
}
