/**
 * @module test/mcp-serve/cancel-before-run.test
 * A request its client cancels before the server's handler starts: the tool
 * body and the guard are never reached, and nothing is left in the server's
 * in-flight bookkeeping (a leftover would make stop() answer a ghost call).
 * The SDK v2's in-memory transport delivers the request and the cancel back
 * to back, so the cancel wins the race every time.
 */
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { expect, it } from "vitest";
import { RunContext, tool } from "../../src/index.js";
import { buildCatalog } from "../../src/mcp/serve/served-catalog.js";
import { newCallCounter, servedServerFactory, type ToolGuard } from "../../src/mcp/serve/served-server.js";

/**
 * How long the server is given to (not) enter the handlers of the calls
 * cancelled before dispatch. A real wait, kept: it proves something does NOT
 * happen within a window.
 */
const DRAIN_MS = 20;

it("a call cancelled before its handler runs reaches neither the guard nor the tool, and leaves nothing in flight", async () => {
  let bodies = 0;
  let guarded = 0;
  const work = tool({ name: "work", description: "Counts its runs.", sideEffecting: false }, () => {
    bodies++;
    return "done";
  });
  const guard: ToolGuard = async () => {
    guarded++;
    return { allowed: true };
  };
  const counter = newCallCounter();
  const ctx = new RunContext();
  const server = servedServerFactory(buildCatalog([work], "engine"), { ctx, guard }, counter)();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "agentkit-test", version: "0.0.1" });
  await client.connect(clientSide);
  try {
    for (let i = 0; i < 5; i++) {
      const ac = new AbortController();
      const call = client.callTool({ name: "work", arguments: {} }, { signal: ac.signal }).catch((e: unknown) => e);
      ac.abort("changed my mind");
      expect(await call).toBeInstanceOf(Error);
    }
    // Let the server drain what it received.
    await new Promise((r) => setTimeout(r, DRAIN_MS));
    // SDK v2 drops a request cancelled before dispatch: the handler is not even entered (v1 entered it, and it refused).
    expect(counter.calls).toBe(0);
    expect(bodies).toBe(0);
    expect(guarded).toBe(0);
    expect(counter.inflight!.size).toBe(0);
    // The session still serves.
    expect((await client.callTool({ name: "work", arguments: {} })).content).toEqual([{ type: "text", text: "done" }]);
    expect(counter.inflight!.size).toBe(0);
    expect(ctx.cancelled).toBe(false);
  } finally {
    await client.close();
    await server.close();
  }
});
