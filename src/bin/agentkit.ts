#!/usr/bin/env node
/**
 * @module bin/agentkit
 * The `agentkit` executable (package.json `bin`): serve an @McpServer module
 * to Claude Code or Codex, inspect any MCP server, call one tool.
 * Run `agentkit --help`.
 */
import { runAgentkit } from "./main.js";

// A reader that goes away (`agentkit inspect ... | head`) is not a failure.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code !== "EPIPE") throw err;
});

runAgentkit(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // Everything is closed by now; if a stray handle still holds the loop, do
    // not hang a terminal or a script on it.
    setTimeout(() => process.exit(code), 2000).unref();
  },
  (err: unknown) => {
    process.stderr.write(`agentkit: internal error: ${String(err)}\n`);
    process.exitCode = 1;
  },
);
