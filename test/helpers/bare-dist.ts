/**
 * @module test/helpers/bare-dist
 * Run an ES module script against a copy of the built package in a temp
 * directory with no node_modules above it, so no optional peer can resolve:
 * how the missing-peer tests prove an entry point imports without its peer and
 * names the install line. Needs `npm run build`; the copy is removed afterwards.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const DIST = fileURLToPath(new URL("../../dist/", import.meta.url));

/** Run `script` (it imports `./dist/...`) in a fresh node; its stdout and stderr. */
export function runInBareDist(prefix: string, script: string): { stdout: string; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    cpSync(DIST, join(dir, "dist"), { recursive: true });
    writeFileSync(join(dir, "package.json"), '{ "type": "module" }');
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: dir, encoding: "utf8", timeout: 20_000 });
    return { stdout: run.stdout, stderr: run.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
