/**
 * @module test/mcp-client/entry-gating.test
 * `arc-agentkit/mcp` without its optional peers fails at once with the install
 * line. Proven in a scratch project under os.tmpdir(): the built package
 * (package.json + dist) is copied in — a copy, not a link, so Node resolves
 * its imports from the scratch project — and every dependency of this repo is
 * linked in except the peers being withheld. Offline; the scratch dir is
 * removed afterwards.
 */
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { scratchProject as makeScratch } from "../helpers/scratch-project.js";
import { NODE, ROOT } from "./support.js";

const INSTALL = "npm install @modelcontextprotocol/sdk express";
const PEERS = ["@modelcontextprotocol/sdk", "express"];

let scratch: string | undefined;
afterEach(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

/** A scratch project holding the built package and every dependency except `withheld`. */
function scratchProject(withheld: readonly string[]): string {
  return (scratch = makeScratch(ROOT, withheld));
}

/** Import `specifier` in a fresh node inside `dir`; report how it went. */
function importIn(dir: string, specifier: string): { loaded: boolean; name?: string; message?: string; code?: string } {
  const code = `import(${JSON.stringify(specifier)}).then(
    () => console.log(JSON.stringify({ loaded: true })),
    (e) => console.log(JSON.stringify({ loaded: false, name: e?.name, message: e?.message, code: e?.code })))`;
  const r = spawnSync(NODE, ["--input-type=module", "-e", code], { cwd: dir, encoding: "utf8", timeout: 60_000 });
  if (r.status !== 0) throw new Error(`node exited with ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!) as never;
}

describe("entry gating of arc-agentkit/mcp", () => {
  it("without the peers: an Error naming the install line, while the core still loads", () => {
    const dir = scratchProject(PEERS);
    const mcp = importIn(dir, "arc-agentkit/mcp");
    expect(mcp.loaded).toBe(false);
    expect(mcp.name).toBe("MissingPeerError");
    expect(mcp.message).toContain(INSTALL);
    expect(mcp.code).toBe("missing_peer"); // ours, not ERR_MODULE_NOT_FOUND from deep inside
    expect(importIn(dir, "arc-agentkit")).toEqual({ loaded: true });
  });

  it("with the SDK but without express: the same Error", () => {
    const mcp = importIn(scratchProject(["express"]), "arc-agentkit/mcp");
    expect(mcp).toMatchObject({ loaded: false, name: "MissingPeerError" });
    expect(mcp.message).toContain(INSTALL);
  });

  it("control: with both peers present the same scratch project loads it", () => {
    expect(importIn(scratchProject([]), "arc-agentkit/mcp")).toEqual({ loaded: true });
  });
});
