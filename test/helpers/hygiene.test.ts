/**
 * @module test/helpers/hygiene.test
 * The per-file hygiene check's two probes: a LISTEN socket this process opens
 * is seen (with its address) until it is closed, on IPv4 and IPv6 loopback;
 * a process warning is collected and counts as unexpected until the file
 * says it expects it.
 */
import { connect, createServer, type Server } from "node:net";
import { describe, expect, it } from "vitest";
import { expectWarnings, hygieneState, ownListenSockets, unexpectedWarnings } from "./hygiene.js";

function listening(host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen({ host, port: 0 }, () => resolve(s));
  });
}
const closed = (s: Server): Promise<void> => new Promise((r) => s.close(() => r()));

describe("ownListenSockets", () => {
  it.each([
    ["127.0.0.1", (port: number) => `127.0.0.1:${port}`],
    ["::1", (port: number) => `[0:0:0:0:0:0:0:1]:${port}`],
  ])("sees a server listening on %s until it is closed", async (host, address) => {
    const before = new Set(ownListenSockets().map((s) => s.inode));
    const server = await listening(host);
    try {
      const port = (server.address() as { port: number }).port;
      const added = ownListenSockets().filter((s) => !before.has(s.inode));
      expect(added.map((s) => s.address)).toEqual([address(port)]);
    } finally {
      await closed(server);
    }
    expect(ownListenSockets().filter((s) => !before.has(s.inode))).toEqual([]);
  });

  it("does not count a connected (non-listening) socket", async () => {
    const server = await listening("127.0.0.1");
    const before = ownListenSockets().length;
    const sock = connect({ host: "127.0.0.1", port: (server.address() as { port: number }).port });
    try {
      await new Promise((r) => sock.once("connect", r));
      expect(ownListenSockets()).toHaveLength(before);
    } finally {
      sock.destroy();
      await closed(server);
    }
  });
});

describe("warnings", () => {
  it("are collected; unexpected until expectWarnings() names them", async () => {
    // Node's own printer ('onWarning') is set aside while this deliberate warning is emitted, so the run's output stays clean.
    const printers = process.listeners("warning").filter((l) => l.name === "onWarning");
    for (const l of printers) process.off("warning", l);
    try {
      process.emitWarning("a test of the hygiene check", "AgentkitHygieneWarning");
      await new Promise((r) => setImmediate(r));
    } finally {
      for (const l of printers) process.prependListener("warning", l);
    }
    expect(hygieneState().warnings.map((w) => w.name)).toContain("AgentkitHygieneWarning");
    expect(unexpectedWarnings()).toEqual(["AgentkitHygieneWarning: a test of the hygiene check"]);
    expectWarnings("SomethingElse");
    expect(unexpectedWarnings()).toHaveLength(1);
    expectWarnings(/^AgentkitHygieneWarning: /);
    expect(unexpectedWarnings()).toEqual([]);
  });
});
