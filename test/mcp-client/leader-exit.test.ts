/** @module test/mcp-client/leader-exit.test */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MCPClient, StdioServer } from "../../src/mcp/index.js";
import { NODE, fixture, killTagged, newTag, taggedProcesses } from "./support.js";
import { untilValue } from "../helpers/wait.js";
import { McpRequestError } from "../../src/index.js";

/** How long a pending call may take to fail here: far below the 60 s request timeout the client is given. */
const BOUND_MS = 10_000;

// The shape of issue 14 defect 4: a launcher `sh -c "helper & exec node server.js"`.
// The helper (here `sleep`) inherits the shell's stdout, so when the server
// (the group leader, exec'd by the shell) dies, stdout never ends: only the
// leader's exit says the server is gone.
function launcherWithHelper(tag: string): StdioServer {
  const script = `sleep 300 & exec "$0" "$1"`;
  return new StdioServer({
    command: "sh",
    args: ["-c", script, NODE, fixture("counting-stdio-server.mjs")],
    env: { AGENTKIT_TREE_TAG: tag },
  });
}

describe("a stdio server that dies while a grandchild holds its stdout", () => {
  it("a pending call fails promptly naming the exit, not after the request timeout, and close() ends the group", async () => {
    const tag = newTag();
    const client = await MCPClient.start(launcherWithHelper(tag), { requestTimeoutMs: 60_000 });
    try {
      expect(taggedProcesses(tag)).toHaveLength(2); // the server (leader) and the helper
      const pending = client.callTool("slow", {}).then(
        () => "answered",
        (e: unknown) => e,
      );
      // The slow tool has started on the server before the leader is killed.
      await untilValue(
        async () => ((await client.callTool("stats", {})).content[0] as { text: string }).text,
        (t) => (JSON.parse(t) as { slowStarted: number }).slowStarted === 1,
        "the slow tool to start",
      );
      process.kill(client.pid!, "SIGKILL");
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        pending,
        new Promise((r) => (timer = setTimeout(() => r(`still pending after ${BOUND_MS} ms`), BOUND_MS))),
      ]);
      clearTimeout(timer);
      expect(outcome).toBeInstanceOf(McpRequestError);
      expect((outcome as Error).message).toContain("the server process was killed by SIGKILL");
      expect((outcome as Error).message).not.toContain("Request timed out");
    } finally {
      await client.stop();
    }
    expect(taggedProcesses(tag)).toEqual([]); // the helper went with the group
    killTagged(tag);
  }, 30_000);

  it("a leader that exits with a code is named by that code", async () => {
    const tag = newTag();
    const script = `sleep 300 & "$0" "$1"; exit 7`; // the shell stays the leader and exits 7 once the server is gone
    const client = await MCPClient.start(
      new StdioServer({ command: "sh", args: ["-c", script, NODE, fixture("counting-stdio-server.mjs")], env: { AGENTKIT_TREE_TAG: tag } }),
      {
        requestTimeoutMs: 60_000,
      },
    );
    try {
      const pending = client.callTool("slow", {}).catch((e: unknown) => e);
      const server = await untilValue(
        () => taggedProcesses(tag).filter((p) => p !== client.pid),
        (p) => p.length === 2,
        "two server processes beside the leader",
      );
      // kill the node server (not the leader, not the helper): the shell then exits 7
      for (const pid of server) {
        try {
          if (readFileSync(`/proc/${pid}/cmdline`, "latin1").includes("counting-stdio-server")) process.kill(pid, "SIGKILL");
        } catch {
          // gone
        }
      }
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        pending,
        new Promise((r) => (timer = setTimeout(() => r(`still pending after ${BOUND_MS} ms`), BOUND_MS))),
      ]);
      clearTimeout(timer);
      expect(outcome).toBeInstanceOf(McpRequestError);
      expect((outcome as Error).message).toContain("the server process exited with code 7");
    } finally {
      await client.stop();
    }
    expect(taggedProcesses(tag)).toEqual([]);
    killTagged(tag);
  }, 30_000);

  it("a call whose write meets the dying server's closed stdin (EPIPE) is named by how the server ended, not by the broken pipe", async () => {
    const client = await MCPClient.start(new StdioServer({ command: NODE, args: [fixture("stdin-gone-then-exit.mjs")] }), {
      requestTimeoutMs: 60_000,
    });
    try {
      await client.callTool("hang_up", {}); // the server closes its stdin now and exits 7 after 300 ms
      const outcome = await client.callTool("echo", {}).then(
        () => "answered",
        (e: unknown) => e,
      );
      expect(outcome).toBeInstanceOf(McpRequestError);
      expect((outcome as Error).message).toContain("the server process exited with code 7");
    } finally {
      await client.stop();
    }
  }, 30_000);
});
