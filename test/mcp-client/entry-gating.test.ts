/**
 * @module test/mcp-client/entry-gating.test
 * `arc-agentkit/mcp` loads no optional peer when imported: a program that only
 * uses `MCPClient` needs only `@modelcontextprotocol/client` — no express, no
 * serving package, no SDK 1.x — and each serving part names its own install
 * line when its peer is missing. Proven in a scratch project under
 * os.tmpdir(): the built package (package.json + dist) is copied in — a copy,
 * not a link, so Node resolves its imports from the scratch project — and
 * every dependency of this repo is linked in except the peers withheld.
 * Offline; the scratch dir is removed afterwards.
 */
import { rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { runIn, scratchProject as makeScratch } from "../helpers/scratch-project.js";
import { NODE, ROOT } from "./support.js";

const SERVING = ["@modelcontextprotocol/server", "@modelcontextprotocol/sdk", "express"];

let scratch: string | undefined;
afterEach(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

function scratchProject(withheld: readonly string[]): string {
  return (scratch = makeScratch(ROOT, withheld));
}

/** Opens server-everything over stdio with MCPClient and lists its tools; then tries to serve one tool. */
const PROGRAM = `
const out = {};
try {
  const { MCPClient, StdioServer, serveRegistry } = await import("arc-agentkit/mcp");
  const { tool, RunContext } = await import("arc-agentkit");
  out.imported = true;
  const server = new StdioServer({ command: process.execPath, args: ["node_modules/@modelcontextprotocol/server-everything/dist/index.js", "stdio"] });
  const client = await MCPClient.start(server);
  try {
    out.tools = (await client.listTools()).length;
    out.protocolVersion = client.protocolVersion;
  } finally {
    await client.stop();
  }
  const echo = tool({ name: "echo", description: "Echo.", sideEffecting: false, input: { type: "object", properties: {}, additionalProperties: false } }, async () => "ok");
  try {
    const spec = await serveRegistry([echo], { name: "gate", ctx: new RunContext() });
    await spec.start();
    out.served = spec.serving;
    await spec.stop();
  } catch (e) {
    out.serveError = { name: e?.name, code: e?.code, message: e?.message };
  }
} catch (e) {
  out.error = { name: e?.name, message: e?.message };
}
console.log(JSON.stringify(out));
`;

type Outcome = {
  imported?: boolean;
  tools?: number;
  protocolVersion?: string;
  served?: boolean;
  serveError?: { name: string; code: string; message: string };
  error?: unknown;
};

describe("entry gating of arc-agentkit/mcp", () => {
  it("without express, the serving package and SDK 1.x: MCPClient opens and lists; serving names its install line", () => {
    const r = runIn<Outcome>(NODE, scratchProject(SERVING), PROGRAM);
    expect(r.error).toBeUndefined();
    expect(r.imported).toBe(true);
    expect(r.tools).toBeGreaterThan(0);
    expect(r.protocolVersion).toBe("2025-11-25");
    expect(r.serveError).toMatchObject({ name: "MissingPeerError", code: "missing_peer" });
    expect(r.serveError!.message).toContain("npm install @modelcontextprotocol/server");
  }, 90_000);

  it("with the serving package but without express: the loopback listener is node:http, so serving works", () => {
    const r = runIn<Outcome>(NODE, scratchProject(["express", "@modelcontextprotocol/express"]), PROGRAM);
    expect(r.tools).toBeGreaterThan(0);
    expect(r.serveError).toBeUndefined();
    expect(r).toMatchObject({ imported: true, served: true });
  }, 90_000);

  it("control: with every peer present the same program serves", () => {
    const r = runIn<Outcome>(NODE, scratchProject([]), PROGRAM);
    expect(r).toMatchObject({ imported: true, served: true });
  }, 90_000);
});
