/**
 * @module bin/inspect.command
 * `agentkit inspect`: connect to an MCP server and show what agentkit would make of it.
 */
import { flag, parseCommandLine, strayArgument, stringOption, type OptionTable } from "./args.js";
import { openTarget, TARGET_OPTIONS, targetOf } from "./connect-target.js";
import type { FailureContext } from "./failure-line.js";
import { INSPECT_HELP } from "./help.js";
import { inspectServer, renderReport } from "./server-report.js";
import { withSpinner } from "./spinner.js";

const OPTIONS: OptionTable = {
  ...TARGET_OPTIONS,
  prefix: { type: "string" },
  name: { type: "string" },
  json: { type: "boolean" },
  verbose: { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

/**
 * Run `agentkit inspect` with `argv` (the words after `inspect`); resolves
 * with the exit code. Output: the report on stdout (text, or JSON with
 * `--json`); nothing else on stdout.
 *
 * @throws UsageError for a bad command line; the client's errors otherwise (see failure-line).
 */
export async function inspectCommand(argv: readonly string[], context: FailureContext): Promise<number> {
  const line = parseCommandLine("inspect", argv, OPTIONS);
  if (flag(line, "help")) {
    process.stdout.write(INSPECT_HELP);
    return 0;
  }
  if (line.positionals.length) {
    throw strayArgument("inspect", 1, "the server command goes after '--' (agentkit inspect -- <command...>)");
  }
  const target = targetOf("inspect", line);
  context.timeoutMs = target.timeoutMs;
  const client = await openTarget(target);
  try {
    const report = await withSpinner("listing tools, resources and prompts…", () =>
      inspectServer(client, {
        prefix: stringOption(line, "prefix") ?? "",
        ...(stringOption(line, "name") !== undefined ? { serverName: stringOption(line, "name") } : {}),
      }),
    );
    process.stdout.write(flag(line, "json") ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report));
  } finally {
    await client.stop();
  }
  return 0;
}
