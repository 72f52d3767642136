/**
 * @module test/listener/socket-deadlines.test
 * Every HTTP server the package makes (`listener/servers`) keeps the same
 * socket deadlines: a client that opens a connection and never finishes its
 * headers is answered (400 or 408) and cut off within `LISTENER_LIMITS.headersTimeoutMs`
 * (plus Node's check interval), on the loopback listener and on a module hosted
 * beyond loopback alike — not after Node's default minute.
 */
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { listenHosted } from "../../src/listener/hosted-listener.js";
import { LoopbackListener } from "../../src/listener/loopback-listener.js";
import { LISTENER_LIMITS } from "../../src/listener/servers.js";

/** Open a socket to `port`, send half a request, and resolve with what came back and after how long (or "open" at `boundMs`). */
function halfRequest(port: number, boundMs: number): Promise<{ reply: string; ms: number } | "open"> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, "127.0.0.1", () => socket.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
    let reply = "";
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => (reply += d));
    const timer = setTimeout(() => {
      socket.destroy();
      resolve("open");
    }, boundMs);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ reply, ms: Date.now() - started });
    });
    socket.on("error", () => {});
  });
}

describe("socket deadlines on every HTTP server", () => {
  it("a request whose headers never end is answered (400 or 408) and closed within the headers deadline, loopback and hosted alike", async () => {
    const bound = LISTENER_LIMITS.headersTimeoutMs + 3 * LISTENER_LIMITS.checkIntervalMs + 2_000;
    const loopback = await LoopbackListener.bind("127.0.0.1", 0);
    const hosted = await listenHosted((_req, res) => res.end("ok"), 0, "127.0.0.1");
    try {
      const [a, b] = await Promise.all([halfRequest(loopback.port, bound), halfRequest(hosted.address.port, bound)]);
      for (const outcome of [a, b]) {
        expect(outcome).not.toBe("open");
        const { reply, ms } = outcome as { reply: string; ms: number };
        expect(reply).toMatch(/^HTTP\/1\.1 40[08] /); // the loopback listener answers every client error 400; Node answers a timeout 408
        expect(ms).toBeGreaterThanOrEqual(LISTENER_LIMITS.headersTimeoutMs - 100);
      }
    } finally {
      await loopback.close();
      hosted.cutConnections();
      await hosted.stopAccepting();
    }
  }, 20_000);
});
