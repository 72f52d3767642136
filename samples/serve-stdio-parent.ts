/**
 * @module samples/serve-stdio-parent
 * transport: "stdio": the parent half writes a config naming a command.
 *
 * The CLI spawns a stdio server itself, so this process's tools, closures and
 * ctx do not cross over: the config names a command. The command starts from
 * process.execPath (not `node` on PATH: the CLI spawns the child with the
 * caller's PATH) and names the built child, serve-stdio-child.js; `env` is
 * often the only way that fresh process finds the package your tools live in.
 */
import { readFileSync } from "node:fs";
import { tool } from "arc-agentkit";
import { serveRegistry, stdioCommand } from "arc-agentkit/mcp";
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

async function main(): Promise<void> {
  const spec = await serveRegistry(
    [runCheck], // a bare list works; it is registered for you
    {
      name: "engine",
      ctx: makeTestCtx(),
      transport: "stdio",
      command: stdioCommand(new URL("./serve-stdio-child.js", import.meta.url)),
      env: { NODE_PATH: "/srv/app" },
    },
  );
  await using _ = spec;
  await spec.start();
  const entry = JSON.parse(readFileSync(spec.configPath, "utf8")).mcpServers.engine;
  console.log("type:", entry.type);
  if (entry.command !== process.execPath) throw new Error(`expected the command to be process.execPath, got ${entry.command}`);
  console.log("args:", JSON.stringify(entry.args), "(command is process.execPath)");
  console.log("env: ", JSON.stringify(entry.env));
  console.log("url: ", spec.url); // null: a stdio server has no endpoint
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
