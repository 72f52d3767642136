/**
 * @module bin/main
 * `agentkit <command>`: dispatch, `--help`/`--version`, and the one place a
 * failure becomes one line on stderr plus an exit code.
 */
import { PACKAGE_VERSION } from "../util/package-version.js";
import { EXIT_USAGE } from "./cli.error.js";
import { explainFailure, verboseDetail, type FailureContext } from "./failure-line.js";
import { MAIN_HELP } from "./help.js";

const COMMANDS = ["init", "serve", "host", "inspect", "call", "login", "approve", "inbox", "runs"] as const;
type Command = (typeof COMMANDS)[number];

async function run(command: Command, argv: readonly string[], context: FailureContext): Promise<number> {
  // Loaded on demand: `--help` and `inspect` never load the serving side, and
  // nothing loads the MCP SDK before a command needs it.
  switch (command) {
    case "init":
      return (await import("./init.command.js")).initCommand(argv);
    case "serve":
      return (await import("./serve.command.js")).serveCommand(argv, context);
    case "host":
      return (await import("./host.command.js")).hostCommand(argv, context);
    case "inspect":
      return (await import("./inspect.command.js")).inspectCommand(argv, context);
    case "call":
      return (await import("./call.command.js")).callCommand(argv, context);
    case "login":
      return (await import("./login.command.js")).loginCommand(argv, context);
    case "approve":
      return (await import("./approve.command.js")).approveCommand(argv, context);
    case "inbox":
      return (await import("./inbox.command.js")).inboxCommand(argv, context);
    case "runs":
      return (await import("./runs.command.js")).runsCommand(argv, context);
  }
}

/**
 * Run `agentkit` with `argv` (the words after the program name) and resolve
 * with the exit code. Never throws: a failure is written to stderr as one
 * line (plus stacks with `--verbose`) and becomes exit code 1 (run time) or
 * 2 (usage).
 */
export async function runAgentkit(argv: readonly string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === "-h" || first === "--help" || first === "help") {
    (first === undefined ? process.stderr : process.stdout).write(MAIN_HELP);
    return first === undefined ? EXIT_USAGE : 0;
  }
  if (first === "--version" || first === "-v") {
    process.stdout.write(`${PACKAGE_VERSION}\n`);
    return 0;
  }
  if (!(COMMANDS as readonly string[]).includes(first)) {
    process.stderr.write(`agentkit: unknown command '${first}'. Commands: ${COMMANDS.join(", ")} (see agentkit --help)\n`);
    return EXIT_USAGE;
  }
  const context: FailureContext = { command: first };
  try {
    return await run(first as Command, rest, context);
  } catch (err) {
    const failure = explainFailure(err, context);
    process.stderr.write(`${failure.line}\n`);
    const cut = rest.indexOf("--");
    if ((cut < 0 ? rest : rest.slice(0, cut)).includes("--verbose")) process.stderr.write(`${verboseDetail(err)}\n`);
    return failure.exitCode;
  }
}
