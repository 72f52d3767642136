/**
 * Sessions nobody deletes (issue 13 item 2, issue 14 item 8): three of six
 * third-party clients never send DELETE, so without an idle expiry every
 * session they open lives until stop(). 10,000 undeleted sessions with
 * `sessionIdleMs: 1000` must leave the server's heap within a few MiB of
 * where it started once they have expired (bounded in time), and the server
 * still serves a fresh client at the end.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { RunContext } from "../../src/context/run-context.js";
import { serveRegistry, type McpServerSpec } from "../../src/mcp/serve/index.js";
import { until } from "../helpers/wait.js";
import { echoText, echoTool, firstText, report, sdkClient, type BodyCounter } from "./helpers.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const MiB = 1024 * 1024;

function heap(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "never-deletes", version: "0" } },
});

/**
 * The spec's live stateful sessions: its endpoint's own count (kept for tests
 * and diagnostics; not on the spec's public surface).
 */
function liveSessions(spec: McpServerSpec): number {
  return (spec as unknown as { listener: { sessionCount: number } }).listener.sessionCount;
}

describe("undeleted sessions", () => {
  it(
    "10,000 initialize calls that never DELETE: the heap comes back within a few MiB once they expire",
    { timeout: 600_000 },
    async ({ task }) => {
      const counter: BodyCounter = { runs: 0 };
      // maxSessions above the count, so expiry (not the cap) is what frees them.
      const spec = await serveRegistry([echoTool(counter)], {
        name: "rel",
        ctx: new RunContext(),
        sessionIdleMs: 1000,
        maxSessions: 20_000,
      });
      await spec.start();
      try {
        const headers = { ...spec.authHeaders, "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
        const initialize = async (): Promise<string> => {
          const res = await fetch(spec.url!, { method: "POST", headers, body: INITIALIZE });
          await res.text();
          expect(res.status).toBe(200);
          return res.headers.get("mcp-session-id")!;
        };
        for (let i = 0; i < 50; i++) await initialize(); // warm-up: code paths, pools
        expect(liveSessions(spec)).toBe(50);
        // The heap is measured once the server's idle sweep (sessionIdleMs 1000) has closed every warm-up session.
        await until(
          () => liveSessions(spec) === 0,
          () => `the warm-up sessions to expire (${liveSessions(spec)} live)`,
          10_000,
        );
        const start = heap();
        const t0 = performance.now();
        const N = 10_000;
        let next = 0;
        const ids = new Set<string>();
        await Promise.all(
          Array.from({ length: 16 }, async () => {
            while (next < N) {
              next++;
              ids.add(await initialize());
            }
          }),
        );
        const opened = performance.now() - t0;
        const peak = heap();
        let now = peak;
        const settled = await until(() => (now = heap()) - start < 4 * MiB, "the heap to come back", 60_000).then(
          () => true,
          () => false,
        );
        const after = now;
        report(task, {
          sessions: ids.size,
          "opened in s": (opened / 1000).toFixed(1),
          "heap at start MiB": (start / MiB).toFixed(1),
          "heap after 10,000 sessions MiB": (peak / MiB).toFixed(1),
          "heap once expired MiB": (after / MiB).toFixed(1),
          "rss MiB": (process.memoryUsage().rss / MiB).toFixed(0),
        });
        expect(ids.size).toBe(N);
        expect(settled, `heap ${((after - start) / MiB).toFixed(1)} MiB above the start`).toBe(true);
        const client = await sdkClient(spec.url!, spec.authHeaders);
        try {
          expect(firstText((await client.callTool({ name: "echo", arguments: { i: 1, text: "after" } })) as CallToolResult)).toBe(
            echoText({ i: 1, text: "after" }),
          );
        } finally {
          await client.close();
        }
      } finally {
        await spec.stop();
      }
    },
  );
});
