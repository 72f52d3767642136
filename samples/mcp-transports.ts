/**
 * @module samples/mcp-transports
 * Two transports and the list cache: both server configs are frozen with their
 * one mutable field deep-frozen, identity ignores env and headers, and
 * `forceRefresh` is the way out of the 30-second list cache.
 */
import { fileURLToPath } from "node:url";
import { MCPClient, StdioServer, StreamableHttpServer } from "arc-agentkit/mcp";

const opsServer = fileURLToPath(new URL("./servers/ops-server.js", import.meta.url));

const local = new StdioServer({
  command: process.execPath,
  args: [opsServer],
  env: { TZ: "UTC" }, // overlays on process.env in the subprocess
  cwd: fileURLToPath(new URL(".", import.meta.url)),
});

const remote = new StreamableHttpServer({
  url: "https://mcp.example.com/mcp",
  headers: { Authorization: "Bearer …" },
  timeoutMs: 30_000,
});

/** A server that just registered a new tool won't be visible for up to 30 s otherwise. */
async function refresh(client: MCPClient) {
  return client.listTools({ forceRefresh: true });
}

async function main(): Promise<void> {
  console.log(
    "frozen:              ",
    Object.isFrozen(local),
    Object.isFrozen(local.env),
    Object.isFrozen(remote),
    Object.isFrozen(remote.headers),
  );
  console.log(
    "env not identity:    ",
    local.equals(new StdioServer({ command: local.command, args: [...local.args], cwd: local.cwd, env: { TZ: "Europe/Paris" } })),
  );
  console.log(
    "headers not identity:",
    remote.equals(new StreamableHttpServer({ url: remote.url, headers: { Authorization: "Bearer other" }, timeoutMs: 30_000 })),
  );
  try {
    (local.env as Record<string, string>).TZ = "edited after review";
  } catch (err) {
    console.log("edit after review:   ", (err as Error).name);
  }
  await using client = await MCPClient.start(local);
  const first = await client.listTools();
  const cached = await client.listTools();
  const fresh = await refresh(client);
  console.log("cached is a copy:    ", first !== cached && first[0] === cached[0]);
  console.log(
    "refreshed:           ",
    fresh.map((t) => t.name),
    fresh[0] !== first[0],
  );
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
