/**
 * @module test/helpers/scratch-project
 * A scratch project under os.tmpdir() holding the built package (package.json
 * + dist, copied so Node resolves its imports from the scratch project) and a
 * link to every dependency of this repo except the ones withheld: how the
 * entry-gating tests prove an entry point works, or names its install line,
 * without an optional peer. Offline.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Make the scratch project; the caller removes the returned directory. */
export function scratchProject(root: string, withheld: readonly string[]): string {
  if (!existsSync(join(root, "dist/index.js"))) throw new Error("dist/ is missing: run `npm run build` first (npm test does)");
  const dir = mkdtempSync(join(tmpdir(), "agentkit-gate-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "gate-scratch", private: true, type: "module" }));
  const nm = join(dir, "node_modules");
  const pkg = join(nm, "arc-agentkit");
  mkdirSync(pkg, { recursive: true });
  cpSync(join(root, "package.json"), join(pkg, "package.json"));
  cpSync(join(root, "dist"), join(pkg, "dist"), { recursive: true });
  const link = (name: string) => symlinkSync(join(root, "node_modules", name), join(nm, name), "dir");
  for (const entry of readdirSync(join(root, "node_modules"))) {
    if (entry.startsWith(".") || entry === "arc-agentkit") continue;
    if (entry.startsWith("@")) {
      mkdirSync(join(nm, entry), { recursive: true });
      for (const sub of readdirSync(join(root, "node_modules", entry))) {
        if (!withheld.includes(`${entry}/${sub}`)) link(`${entry}/${sub}`);
      }
    } else if (!withheld.includes(entry)) {
      link(entry);
    }
  }
  return dir;
}

/** Run ESM `code` in a fresh node inside `dir`; returns the JSON its last stdout line holds. */
export function runIn<T>(node: string, dir: string, code: string): T {
  const r = spawnSync(node, ["--input-type=module", "-e", code], { cwd: dir, encoding: "utf8", timeout: 60_000 });
  if (r.status !== 0) throw new Error(`node exited with ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!) as T;
}
