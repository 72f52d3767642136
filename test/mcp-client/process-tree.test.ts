/** @module test/mcp-client/process-tree.test */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { MCPClient, StdioServer } from "../../src/mcp/index.js";
import { descendants, endGroup, groupMembers, killTree } from "../../src/wire/process-tree.js";
import { EVERYTHING, NODE, fixture, killTagged, newTag, taggedProcesses } from "./support.js";
import { untilValue } from "../helpers/wait.js";

// The launcher starts server-everything as a grandchild that keeps running
// after stdin closes (a watcher, a pool, a thread): the npx/uvx shape where
// ending only the direct child orphans the real server.
function launched(tag: string): { command: string; args: string[]; env: Record<string, string> } {
  return { command: NODE, args: [fixture("launcher-spawns-grandchild.mjs"), EVERYTHING, "stdio"], env: { AGENTKIT_TREE_TAG: tag } };
}

describe("closing a stdio client ends the server's whole process tree", () => {
  it("a launcher and the real server it spawned are both gone after close()", async () => {
    const tag = newTag();
    const client = await MCPClient.start(new StdioServer(launched(tag)));
    try {
      const names = (await client.listTools()).map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["echo", "get-sum"]));
      const tree = taggedProcesses(tag);
      expect(tree).toHaveLength(2); // launcher + server
      expect(tree).toContain(client.pid);
      expect(client.stderrTail).toMatch(/^launcher \d+ started server \d+$/m);
    } finally {
      await client.stop();
    }
    expect(taggedProcesses(tag)).toEqual([]);
  });

  it("control: the SDK's own StdioClientTransport leaves that grandchild running", async () => {
    const tag = newTag();
    const { command, args, env } = launched(tag);
    const session = new Client({ name: "control", version: "0" });
    await session.connect(
      new StdioClientTransport({ command, args, env: { ...(process.env as Record<string, string>), ...env }, stderr: "pipe" }),
    );
    try {
      expect(taggedProcesses(tag)).toHaveLength(2);
      await session.close(); // ends stdin, waits, SIGTERMs the launcher only
      const left = await untilValue(
        () => taggedProcesses(tag),
        (p) => p.length <= 1,
        "at most the orphaned server left",
        3000,
      );
      expect(left).toHaveLength(1); // the orphaned server
    } finally {
      killTagged(tag);
      await untilValue(
        () => taggedProcesses(tag),
        (p) => p.length === 0,
        "no process with the tag left",
      );
    }
  });
});

describe("the process-tree module (wire/process-tree)", () => {
  // A shell in its own group with a child in the group and one that left it (setsid).
  function shellTree(tag: string): number {
    const sh = spawn("sh", ["-c", "sleep 300 & setsid sleep 300 & wait"], {
      detached: true,
      stdio: "ignore",
      env: { ...process.env, AGENTKIT_TREE_TAG: tag },
    });
    return sh.pid!;
  }

  // The tree is ready once all three run and the setsid one has left the
  // group: until setsid() returns, that child is still a group member, and a
  // group signal sent then ends it too (a loaded machine widens the window).
  async function settled(tag: string, pid: number): Promise<void> {
    const ready = () => taggedProcesses(tag).length === 3 && groupMembers(pid).length === 2;
    await untilValue(ready, (ok) => ok, "the process tree to be up", 15_000);
    expect({ tagged: taggedProcesses(tag).length, inGroup: groupMembers(pid).length }).toEqual({ tagged: 3, inGroup: 2 });
  }

  it("killTree ends the leader, its group and a descendant that left the group", async () => {
    const tag = newTag();
    const pid = shellTree(tag);
    try {
      await settled(tag, pid); // sh and the first sleep in the group; the setsid one left it
      expect(descendants(pid)).toHaveLength(2);
      killTree(pid);
      expect(
        await untilValue(
          () => taggedProcesses(tag),
          (p) => p.length === 0,
          "no process with the tag left",
        ),
      ).toEqual([]);
    } finally {
      killTagged(tag);
    }
  });

  it("endGroup ends only the group: the descendant that left it is out of its reach", async () => {
    const tag = newTag();
    const pid = shellTree(tag);
    try {
      await settled(tag, pid);
      expect(await endGroup(pid, 2000)).toBe(true);
      expect(groupMembers(pid)).toEqual([]);
      expect(taggedProcesses(tag)).toHaveLength(1);
    } finally {
      killTagged(tag);
      await untilValue(
        () => taggedProcesses(tag),
        (p) => p.length === 0,
        "no process with the tag left",
      );
    }
  });
});
