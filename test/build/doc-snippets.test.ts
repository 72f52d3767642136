/**
 * @module test/build/doc-snippets.test
 * Every TypeScript snippet of the user documentation (README.md and
 * docs/*.md), taken out exactly as written: each ```ts block becomes one
 * module of a scratch project under build/ (so `arc-agentkit` resolves to
 * this checkout's built package), the project is type-checked once with the
 * README's own tsconfig (its Install section), and every block whose fence
 * does not say `no-run` is run with node and must exit 0. A block marked
 * ```ts no-run (one that needs a real API key or serves until stopped) is
 * compiled only. The test prints how many ran and how many were compiled only.
 * Needs `npm run build`.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildIfMissing } from "../helpers/build-if-missing.js";
import { runNode } from "../helpers/procs.js";
import { ROOT } from "../helpers/run-sample.js";

/** One fenced ```ts block of a page. */
interface Snippet {
  /** The page, relative to the repository root. */
  readonly page: string;
  /** The 1-based line of the page where the block's code starts. */
  readonly line: number;
  /** The module's file name in the scratch project (without extension). */
  readonly name: string;
  readonly code: string;
  /** False when the fence says `no-run`. */
  readonly run: boolean;
}

/** The user documentation: README.md, then docs/*.md in name order. */
function pages(): string[] {
  const docs = readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`);
  return ["README.md", ...docs];
}

/** The ```ts blocks of `page` (indented fences included, their indentation removed). */
function snippetsOf(page: string): Snippet[] {
  const lines = readFileSync(join(ROOT, page), "utf8").split("\n");
  const stem = page === "README.md" ? "readme" : page.replace(/^docs\//, "").replace(/\.md$/, "");
  const out: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```ts(?:\s+(.*))?$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const info = (open[2] ?? "").trim().split(/\s+/);
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end]!.trim() !== "```") end++;
    if (end === lines.length) throw new Error(`${page}:${i + 1}: a \`\`\`ts block is never closed`);
    const code = lines
      .slice(start, end)
      .map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length)))
      .join("\n");
    out.push({ page, line: start + 1, name: `${stem}-${out.length + 1}`, code, run: !info.includes("no-run") });
    i = end;
  }
  return out;
}

/** The README's tsconfig: the ```json block of its Install section holding `compilerOptions`. */
function readmeTsconfig(): object {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const at = readme.indexOf("## Install");
  if (at < 0) throw new Error("README.md has no '## Install' section");
  const block = /```json\n([\s\S]*?)```/.exec(readme.slice(at))?.[1];
  if (block === undefined || !block.includes("compilerOptions")) throw new Error("README.md: no tsconfig (```json with compilerOptions) under '## Install'");
  return JSON.parse(block) as object;
}

const SNIPPETS = pages().flatMap(snippetsOf);
const dir = join(ROOT, "build", `doc-snippets-${process.pid}`);

beforeAll(async () => {
  await buildIfMissing(ROOT, ["dist/index.js", "dist/bin/agentkit.js"]);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "src"), { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "doc-snippets", private: true, type: "module" }));
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(readmeTsconfig()));
  // The checkout's packages (arc-agentkit among them, as the built package) as the project's own, so a
  // snippet that starts `node_modules/<server>/...` finds it where a user who installed it would.
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  // `export {}` keeps a block without imports a module, so two blocks' top-level names never meet.
  for (const s of SNIPPETS) writeFileSync(join(dir, "src", `${s.name}.ts`), `${s.code}\nexport {};\n`);
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the documentation's TypeScript snippets", () => {
  it("README.md and docs/*.md have snippets, each with its imports", () => {
    expect(SNIPPETS.length).toBeGreaterThan(10);
    const importless = SNIPPETS.filter((s) => !/^import\s/m.test(s.code)).map((s) => `${s.page}:${s.line}`);
    expect(importless, "a snippet with no import statement").toEqual([]);
  });

  it("all compile with the README's tsconfig (skipLibCheck false), then every block not marked no-run runs and exits 0", async () => {
    const tsc = await runNode([join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], { cwd: dir, ms: 240_000 });
    // Errors named by page and line, not by the scratch file.
    const errors = tsc.stdout
      .split("\n")
      .filter((l) => /error TS\d+/.test(l))
      .map((l) => {
        const m = /^src\/([^.]+)\.ts\((\d+),(\d+)\): (.*)$/.exec(l);
        const s = m && SNIPPETS.find((x) => x.name === m[1]);
        return s ? `${s.page}:${s.line + Number(m[2]) - 1}:${m[3]} ${m[4]}` : l;
      });
    expect(errors).toEqual([]);
    expect(tsc.code, tsc.stdout).toBe(0);

    const failed: string[] = [];
    const runnable = SNIPPETS.filter((s) => s.run);
    for (const s of runnable) {
      const run = await runNode([join("dist", `${s.name}.js`)], { cwd: dir, ms: 60_000 });
      if (run.code !== 0) failed.push(`${s.page}:${s.line} exited ${run.code}\n${run.stdout}${run.stderr}`);
    }
    console.log(`doc snippets: ${SNIPPETS.length} compiled, ${runnable.length} ran, ${SNIPPETS.length - runnable.length} compiled only (no-run)`);
    expect(failed).toEqual([]);
    expect(runnable.length).toBeGreaterThan(0);
  }, 600_000);
});
