/**
 * @module test/build/lint-rules.test
 * The eslint rules `npm run lint` adds beyond `recommended` can fail. A
 * scratch tree gets the repository's own eslint.config.js, a tsconfig over
 * its src/, and the package's node_modules; the real eslint CLI lints it as
 * lint does: a clean file passes, and each planted violation is reported by
 * rule and file, and the run exits non-zero.
 */
import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ESLINT = join(ROOT, "node_modules/eslint/bin/eslint.js");

let scratch: string | undefined;
afterEach(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = undefined;
});

interface Finding {
  readonly file: string;
  readonly rule: string | null;
}

/** Lint `files` (paths under the scratch root) with the repository's config; the findings and the exit code. */
async function lint(files: Record<string, string>): Promise<{ findings: Finding[]; code: number }> {
  scratch = await mkdtemp(join(tmpdir(), "agentkit-lint-rules-"));
  await copyFile(join(ROOT, "eslint.config.js"), join(scratch, "eslint.config.js"));
  await writeFile(join(scratch, "package.json"), JSON.stringify({ type: "module" }));
  await writeFile(join(scratch, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", types: ["node"], noEmit: true }, include: ["src/**/*.ts"] }));
  await symlink(join(ROOT, "node_modules"), join(scratch, "node_modules"), "dir");
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(scratch, path, ".."), { recursive: true });
    await writeFile(join(scratch, path), text);
  }
  const dir = scratch;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [ESLINT, "--format", "json", "src"], { cwd: dir, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: number }).code ?? 1) : 0;
      if (code !== 0 && code !== 1) return reject(new Error(`eslint failed to run (exit ${code}): ${stderr}`));
      const results = JSON.parse(stdout) as Array<{ filePath: string; messages: Array<{ ruleId: string | null }> }>;
      resolve({ code, findings: results.flatMap((r) => r.messages.map((m) => ({ file: r.filePath.slice(dir.length + 1), rule: m.ruleId }))) });
    });
  });
}

/** A function of `n` statement lines (plus its two brace lines), with blank lines and comments between that must not count. */
function functionOf(name: string, n: number): string {
  const body = Array.from({ length: n }, (_, i) => `  total += ${i};\n\n  // a comment line\n`).join("");
  return `export function ${name}(): number {\n  let total = 0;\n${body}  return total;\n}\n`;
}

/** A file of `n` small exported constants. */
function fileOf(n: number): string {
  return Array.from({ length: n }, (_, i) => `export const c${i} = ${i};\n\n// comment\n`).join("");
}

describe("size limits (STYLE.md's ~60 and ~600, on formatted lines: functions ≤ 85 lines, files ≤ 750)", () => {
  it("(control) a function of 85 counted lines and a file of 750 pass, blank lines and comments not counted", async () => {
    // 81 statements + `let`, `return` and the two brace lines = 85.
    const { findings, code } = await lint({ "src/fits.ts": functionOf("fits", 81), "src/long-file.ts": fileOf(750) });
    expect(findings).toEqual([]);
    expect(code).toBe(0);
  });

  it("a function of 86 counted lines in src/ fails lint, by rule and file", async () => {
    const { findings, code } = await lint({ "src/too-long.ts": functionOf("tooLong", 82) });
    expect(findings).toEqual([{ file: "src/too-long.ts", rule: "max-lines-per-function" }]);
    expect(code).toBe(1);
  });

  it("a file of 751 counted lines in src/ fails lint", async () => {
    const { findings, code } = await lint({ "src/too-big.ts": fileOf(751) });
    expect(findings).toEqual([{ file: "src/too-big.ts", rule: "max-lines" }]);
    expect(code).toBe(1);
  });
});
