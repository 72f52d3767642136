/**
 * @module test/build/api-docs.test
 * The generated API reference (`npm run docs:api`, TypeDoc from typedoc.json):
 * its entry points are the package's `exports` (each `dist/<x>/index.d.ts`
 * read from `src/<x>/index.ts`), and a run into a scratch folder succeeds,
 * writes a page per entry point, and warns of no type a public name refers to
 * that no entry point exports (beyond the names typedoc.json lists as
 * intentionally not exported) and of no exported name, nor member of one (a
 * property, a method, a call signature), without its own JSDoc.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runNode } from "../helpers/procs.js";
import { ROOT } from "../helpers/run-sample.js";

const CONFIG = JSON.parse(readFileSync(join(ROOT, "typedoc.json"), "utf8")) as { entryPoints: string[] };
const PACKAGE = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  exports: Record<string, string | { types: string }>;
  scripts: Record<string, string>;
};
const out = mkdtempSync(join(tmpdir(), "agentkit-api-docs-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("the API reference (npm run docs:api)", () => {
  it("documents exactly the package's entry points", () => {
    expect(PACKAGE.scripts["docs:api"]).toBe("typedoc");
    const fromExports = Object.values(PACKAGE.exports)
      .filter((e): e is { types: string } => typeof e === "object")
      .map((e) => e.types.replace(/^\.\/dist\//, "src/").replace(/\.d\.ts$/, ".ts"));
    expect([...CONFIG.entryPoints].sort()).toEqual(fromExports.sort());
  });

  it("builds, with a page per entry point, no unexported referenced type and no exported name without JSDoc", async () => {
    const run = await runNode([join(ROOT, "node_modules/typedoc/bin/typedoc"), "--out", out], { cwd: ROOT, ms: 300_000 });
    // TypeDoc colours its lines
    const lines = (run.stdout + run.stderr).replace(/\u001b\[[0-9;]*m/g, "").split("\n");
    expect(lines.filter((l) => l.startsWith("[error]"))).toEqual([]);
    expect(run.code, lines.join("\n")).toBe(0);
    expect(lines.filter((l) => /is referenced by .* but not included in the documentation/.test(l))).toEqual([]);
    // `<entry>.<Name> (<Kind>), defined in ...`: one dot before the kind is an exported name, more is a member
    // every exported name and every member of one (a method, a call signature, a property) has its own JSDoc
    expect(lines.filter((l) => l.includes("does not have any documentation"))).toEqual([]);
    for (const entry of ["index", "testing", "mcp", "cli", "models", "askers", "otel", "express"]) {
      expect(existsSync(join(out, "modules", `${entry}.html`)), `modules/${entry}.html`).toBe(true);
    }
    expect(existsSync(join(out, "index.html"))).toBe(true);
  }, 300_000);
});
