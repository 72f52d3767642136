/**
 * @module samples/serve-stdio-child
 * The child the CLI spawns for `transport: "stdio"` (the command
 * serve-stdio-parent writes into the config): it serves the same tool on its
 * own stdin/stdout, with the same error contract.
 *
 * Nothing crosses the process boundary, so the child builds its own tools and
 * its own ctx. It writes nothing else to stdout (stdout carries the protocol)
 * and exits when the peer closes stdin.
 */
import { tool } from "arc-agentkit";
import { serveRegistryStdio } from "arc-agentkit/mcp";
import { makeTestCtx } from "arc-agentkit/testing";

const runCheck = tool(
  {
    description: "Run the named check and report whether it passed.",
    sideEffecting: false,
    input: { type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false },
  },
  function runCheck({ name }: { name: string }) {
    return `${name}:ok`;
  },
);

/** Serves on this process's stdin/stdout until the peer closes it. A real child builds its own ctx; makeTestCtx keeps this runnable. */
export async function serve(): Promise<void> {
  await serveRegistryStdio([runCheck], { name: "engine", ctx: makeTestCtx() });
}

// What `node serve-stdio-child.js` runs (the command stdioCommand() builds).
serve().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
