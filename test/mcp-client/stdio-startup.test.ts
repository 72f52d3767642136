/**
 * @module test/mcp-client/stdio-startup.test
 * What `MCPClient.start` says about a stdio process that is not the MCP server
 * it was told to be (issue #43 point 5): one that stays up printing something
 * else on stdout fails within 10 s naming what it printed (it used to hold the
 * open for 122 s, then say "Request timed out"); a banner line before a real
 * server's answer is still tolerated; a server refusing a pinned protocol is
 * told to be opened with protocol "auto", and the exit the client itself
 * caused (code 0) is not reported as the server's story.
 *
 * Real processes, real time: the 10 s deadline runs inside the client beside
 * the real process's pipes and its teardown's own grace timers, so the first
 * test waits about 10 s (8 s, then the 2 s the process gets to exit once
 * its stdin ends), bounded at 25 s on a loaded machine.
 */
import { describe, expect, it } from "vitest";
import { MCPClient, StdioServer } from "../../src/mcp/index.js";
import { NODE, fixture } from "./support.js";
import { McpConnectError } from "../../src/index.js";

async function openFailure(server: StdioServer): Promise<McpConnectError> {
  const err = await MCPClient.start(server).then(
    async (c) => (await c.stop(), undefined),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(McpConnectError);
  return err as McpConnectError;
}

describe("MCPClient.start on a stdio process that is not the expected server", () => {
  it("a process that prints other things on stdout fails within 10 s, naming the first bytes it printed", async () => {
    const started = Date.now();
    const err = await openFailure(new StdioServer({ command: NODE, args: [fixture("prints-to-stdout.mjs")] }));
    const took = Date.now() - started;
    expect(err.message).toMatch(
      /^MCPClient could not open stdio server '.*prints-to-stdout\.mjs': no MCP answer within 8s of its start \(it printed/,
    );
    expect(err.message).toContain(`printed on stdout, where only JSON-RPC may go: 'hello world, I am not an MCP server'`);
    expect(err.message).toContain("is the command an MCP server (some take a flag such as 'stdio' or '--stdio')?");
    expect(err.message).not.toContain("Request timed out");
    expect(took).toBeGreaterThanOrEqual(7_500);
    expect(took).toBeLessThan(25_000);
  }, 40_000);

  it("a banner line before a real server's answers is tolerated", async () => {
    await using client = await MCPClient.start(
      new StdioServer({ command: "sh", args: ["-c", `echo 'starting up'; exec "${NODE}" "${fixture("counting-stdio-server.mjs")}"`] }),
    );
    expect((await client.listTools()).length).toBeGreaterThan(0);
  }, 30_000);

  it("a 2025-only server opened with protocol 2026-07-28: the hint to use protocol auto, and no 'exited with code 0' the client caused", async () => {
    const err = await openFailure(new StdioServer({ command: NODE, args: [fixture("era-v1-server.mjs")], protocol: "2026-07-28" }));
    expect(err.message).toContain('the server does not offer protocol 2026-07-28; open it with protocol "auto" or "2025-11-25"');
    expect(err.message).not.toContain("exited with code 0");
    expect(err.exited).toBe(false);
  }, 30_000);
});
