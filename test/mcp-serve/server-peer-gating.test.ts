/**
 * @module test/mcp-serve/server-peer-gating.test
 * Serving needs `@modelcontextprotocol/server` 2.x, loaded on first use: in a
 * scratch project without it (the built package copied in, every other
 * dependency linked), `arc-agentkit/mcp` still loads for client-only users,
 * and `serveRegistry` rejects with `MissingPeerError` naming the install line.
 */
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { afterEach, expect, it } from "vitest";
import { scratchProject } from "../helpers/scratch-project.js";
import { NODE, ROOT } from "../mcp-client/support.js";

let scratch: string | undefined;
afterEach(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

it("without @modelcontextprotocol/server: arc-agentkit/mcp loads; serveRegistry rejects with MissingPeerError naming the install line", () => {
  scratch = scratchProject(ROOT, ["@modelcontextprotocol/server"]);
  const code = `const { tool, RunContext } = await import("arc-agentkit");
    const { serveRegistry } = await import("arc-agentkit/mcp");
    const t = tool({ name: "t", description: "d", input: { type: "object", properties: {} } }, () => "x");
    serveRegistry([t], { name: "s", ctx: new RunContext() }).then(
      () => console.log(JSON.stringify({ served: true })),
      (e) => console.log(JSON.stringify({ served: false, name: e?.name, code: e?.code, message: e?.message })));`;
  const r = spawnSync(NODE, ["--input-type=module", "-e", code], { cwd: scratch, encoding: "utf8", timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as { served: boolean; name?: string; code?: string; message?: string };
  expect(out).toMatchObject({ served: false, name: "MissingPeerError", code: "missing_peer" });
  expect(out.message).toContain("npm install @modelcontextprotocol/server");
});
