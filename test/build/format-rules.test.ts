/**
 * @module test/build/format-rules.test
 * The formatter's check can fail, as `npm run lint` runs it: lint starts with
 * `prettier --check .` (the repository's `.prettierrc.json`) and
 * `scripts/long-lines.mjs`. A scratch project with the repository's Prettier
 * config: a file as the formatter writes it passes the check, the same file
 * hand-packed fails it, naming the file. The long-lines count: 100 lines over
 * 140 characters in a folder pass, 101 fail, naming the file that has them.
 */
import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PRETTIER = join(ROOT, "node_modules/prettier/bin/prettier.cjs");

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run node with `args` in `cwd`. */
function node(cwd: string, args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : null) : 0, stdout, stderr });
    });
  });
}

let scratch: string | undefined;
afterEach(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = undefined;
});

/** A scratch project with the repository's Prettier config and ignore file, and `files`. */
async function project(files: Record<string, string>): Promise<string> {
  scratch = await mkdtemp(join(tmpdir(), "agentkit-format-"));
  await copyFile(join(ROOT, ".prettierrc.json"), join(scratch, ".prettierrc.json"));
  await copyFile(join(ROOT, ".prettierignore"), join(scratch, ".prettierignore"));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(scratch, path, ".."), { recursive: true });
    await writeFile(join(scratch, path), text);
  }
  return scratch;
}

const FORMATTED = `export function total(xs: readonly number[]): number {\n  let sum = 0;\n  for (const x of xs) sum += x;\n  return sum;\n}\n`;
const PACKED = `export function total(xs: readonly number[]): number { let sum = 0; for (const x of xs) sum += x; return sum; }\n`;

describe("the formatter check npm run lint runs", () => {
  it("npm run lint starts with prettier --check . and the long-lines count", async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(pkg.scripts["lint"]).toMatch(/^prettier --check \. .*&& node scripts\/long-lines\.mjs && eslint \./);
  });

  it("a formatted file passes prettier --check with the repository's config; the same code hand-packed fails, naming the file", async () => {
    const dir = await project({ "src/good.ts": FORMATTED, "src/packed.ts": PACKED });
    const ran = await node(dir, [PRETTIER, "--check", "."]);
    expect(ran.code).toBe(1);
    expect(ran.stdout + ran.stderr).toContain("src/packed.ts");
    expect(ran.stdout + ran.stderr).not.toContain("src/good.ts");
    await writeFile(join(dir, "src/packed.ts"), FORMATTED);
    expect((await node(dir, [PRETTIER, "--check", "."])).code).toBe(0);
  });

  it("100 source lines over 140 characters pass the long-lines count; 101 fail, naming the file", async () => {
    const long = (n: number): string => Array.from({ length: n }, (_, i) => `export const m${i} = "${"x".repeat(140)}";\n`).join("");
    const dir = await project({ "src/a.ts": long(60), "src/b.ts": long(40) });
    const fits = await node(dir, [join(ROOT, "scripts/long-lines.mjs"), "src"]);
    expect(fits.stdout).toContain("src/: 100 lines over 140 characters");
    expect(fits.code).toBe(0);
    await writeFile(join(dir, "src/b.ts"), long(41));
    const over = await node(dir, [join(ROOT, "scripts/long-lines.mjs"), "src"]);
    expect(over.code).toBe(1);
    expect(over.stderr).toContain("src/ has 101 lines over 140 characters (at most 100)");
    expect(over.stderr).toMatch(/src\/a\.ts: 60/);
  });
});
