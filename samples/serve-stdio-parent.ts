/**
 * @module samples/serve-stdio-parent
 * transport: "stdio": the parent half writes a config naming a command.
 *
 * The twin of the seed's stdio parent example. The command starts from
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

// Printed the way the seed prints them (Python reprs).
const py = (v: unknown): string =>
  v === null ? "None" : typeof v === "string" ? `'${v}'`
  : Array.isArray(v) ? `[${v.map(py).join(", ")}]`
  : `{${Object.entries(v as object).map(([k, x]) => `'${k}': ${py(x)}`).join(", ")}}`;

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
  console.log("args:", py(entry.args), "(command is process.execPath)");
  console.log("env: ", py(entry.env));
  console.log("url: ", py(spec.url));
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
