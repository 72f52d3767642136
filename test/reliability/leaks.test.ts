/**
 * Leaks: this process's open file descriptors, child processes and listening
 * sockets are counted before and after 10,000 calls through a served
 * registry, 100 serve/connect/call/close cycles over HTTP, and 100
 * open/call/close cycles of a stdio server: they must be equal (within a
 * settle period for sockets the peer closes).
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { untilValue } from "../helpers/wait.js";
import { MCPClient, StdioServer, StreamableHttpServer } from "../../src/mcp/client/index.js";
import { descendants, echoText, echoTool, firstText, listeningSockets, openFds, report, serve, type BodyCounter } from "./helpers.js";

const stdioFixture = fileURLToPath(new URL("../fixtures/servers/tools-stdio-server.mjs", import.meta.url));

interface Counts {
  fds: number;
  children: number;
  listening: number;
}

function counts(): Counts {
  return { fds: openFds(), children: descendants().length, listening: listeningSockets() };
}

/** Waits (up to 10 s, scaled for the machine) for the counts to come back to `before`; the counts then. */
async function settled(before: Counts): Promise<Counts> {
  return untilValue(
    counts,
    (now) => now.fds === before.fds && now.children === before.children && now.listening === before.listening,
    `the open fds, child processes and listening sockets to come back to ${JSON.stringify(before)}`,
    10_000,
  );
}

describe("leaks", () => {
  it(
    "10,000 calls through a served registry leave fds, children and listening sockets as they were",
    { timeout: 600_000 },
    async ({ task }) => {
      const before = counts();
      const counter: BodyCounter = { runs: 0 };
      const spec = await serve([echoTool(counter)]);
      const clients = await Promise.all(
        Array.from({ length: 8 }, () => MCPClient.start(new StreamableHttpServer({ url: spec.url!, headers: spec.authHeaders }))),
      );
      const during = counts();
      try {
        await Promise.all(
          clients.map(async (c, j) => {
            for (let k = 0; k < 1250; k++) {
              const args = { i: j * 1250 + k, text: `leak-${k}` };
              expect(firstText(await c.callTool("echo", args))).toBe(echoText(args));
            }
          }),
        );
      } finally {
        await Promise.all(clients.map((c) => c.stop()));
        await spec.stop();
      }
      expect(counter.runs).toBe(10_000);
      const after = await settled(before);
      report(task, { before: JSON.stringify(before), "while serving": JSON.stringify(during), after: JSON.stringify(after) });
      expect(after).toEqual(before);
    },
  );

  it(
    "100 serve/open/call/close cycles over HTTP and 100 open/call/close cycles over stdio leave the counts as they were",
    { timeout: 600_000 },
    async ({ task }) => {
      const before = counts();
      for (let n = 0; n < 100; n++) {
        const counter: BodyCounter = { runs: 0 };
        const spec = await serve([echoTool(counter)]);
        try {
          await using c = await MCPClient.start(new StreamableHttpServer({ url: spec.url!, headers: spec.authHeaders }));
          expect(firstText(await c.callTool("echo", { i: n, text: "cycle" }))).toBe(echoText({ i: n, text: "cycle" }));
        } finally {
          await spec.stop();
        }
      }
      const afterHttp = await settled(before);
      const t0 = performance.now();
      for (let n = 0; n < 100; n++) {
        await using c = await MCPClient.start(new StdioServer({ command: process.execPath, args: [stdioFixture, "search"] }));
        expect(firstText(await c.callTool("search", { q: String(n) }))).toBe(`search:${n}`);
      }
      const stdioSeconds = (performance.now() - t0) / 1000;
      const after = await settled(before);
      report(task, {
        before: JSON.stringify(before),
        "after HTTP cycles": JSON.stringify(afterHttp),
        "after stdio cycles": JSON.stringify(after),
        "stdio cycle ms (mean)": Math.round((stdioSeconds * 1000) / 100),
      });
      expect(afterHttp).toEqual(before);
      expect(after).toEqual(before);
    },
  );
});
