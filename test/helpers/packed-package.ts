/**
 * @module test/helpers/packed-package
 * The package as a user gets it: `npm pack` of the built checkout (no script
 * runs: the build is made first, only when missing), and a scratch consumer
 * project under os.tmpdir() with that tarball extracted as
 * node_modules/arc-agentkit and a link to every other installed package of
 * this checkout (offline: nothing is downloaded). The caller removes the
 * returned directory.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildIfMissing } from "./build-if-missing.js";

/** Pack `root` (built first when dist/ is missing) into `dest`; returns the tarball's path. */
export async function packTarball(root: string, dest: string): Promise<string> {
  await buildIfMissing(root, ["dist/index.js", "dist/bin/agentkit.js"]);
  const out = execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dest], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  return join(dest, (JSON.parse(out) as Array<{ filename: string }>)[0]!.filename);
}

/**
 * A consumer project: `package.json` (`"type": "module"`), the packed package
 * extracted as node_modules/arc-agentkit, and links to this checkout's other
 * packages except `skip` (names or scopes; `.bin` and the package itself are
 * never linked). Returns the project's directory.
 */
export async function consumerOfTarball(root: string, skip: readonly string[] = []): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "agentkit-packed-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "agentkit-consumer", private: true, type: "module" }));
  const modules = join(dir, "node_modules");
  const pkg = join(modules, "arc-agentkit");
  mkdirSync(pkg, { recursive: true });
  execFileSync("tar", ["-xzf", await packTarball(root, dir), "-C", pkg, "--strip-components=1"]);
  for (const name of readdirSync(join(root, "node_modules"))) {
    if (name.startsWith(".") || name === "arc-agentkit" || skip.includes(name)) continue;
    symlinkSync(join(root, "node_modules", name), join(modules, name), "dir");
  }
  return dir;
}
