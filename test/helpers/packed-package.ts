/**
 * @module test/helpers/packed-package
 * The package as a user gets it: `npm pack` of the built checkout (no script
 * runs: the build is made first, only when missing), and a scratch consumer
 * project under os.tmpdir() (or a project of the caller's) with that tarball
 * extracted as node_modules/arc-agentkit and a link to every other installed
 * package of this checkout (offline: nothing is downloaded). The caller
 * removes the project's directory.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { buildIfMissing } from "./build-if-missing.js";

/** Pack `root` (built first when dist/ is missing) into `dest`; returns the tarball's path. */
export async function packTarball(root: string, dest: string): Promise<string> {
  await buildIfMissing(root, ["dist/index.js", "dist/bin/agentkit.js"]);
  const out = execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dest], {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  return join(dest, (JSON.parse(out) as Array<{ filename: string }>)[0]!.filename);
}

/**
 * Install the packed package into the project at `dir` the way npm would,
 * offline: the tarball extracted as node_modules/arc-agentkit, a link to every
 * other package of this checkout except `skip` (names or scopes; `.bin` and the
 * package itself are never linked), and node_modules/.bin links for `bins`
 * (name to a path inside node_modules). The project's own files are untouched.
 */
export async function installPacked(
  root: string,
  dir: string,
  options: { skip?: readonly string[]; bins?: Readonly<Record<string, string>> } = {},
): Promise<void> {
  const modules = join(dir, "node_modules");
  const pkg = join(modules, "arc-agentkit");
  mkdirSync(pkg, { recursive: true });
  const tarball = await packTarball(root, mkdtempSync(join(tmpdir(), "agentkit-tarball-")));
  try {
    execFileSync("tar", ["-xzf", tarball, "-C", pkg, "--strip-components=1"]);
  } finally {
    rmSync(dirname(tarball), { recursive: true, force: true });
  }
  for (const name of readdirSync(join(root, "node_modules"))) {
    if (name.startsWith(".") || name === "arc-agentkit" || options.skip?.includes(name)) continue;
    symlinkSync(join(root, "node_modules", name), join(modules, name), "dir");
  }
  mkdirSync(join(modules, ".bin"), { recursive: true });
  for (const [name, target] of Object.entries(options.bins ?? {})) symlinkSync(join("..", target), join(modules, ".bin", name));
}

/** A consumer project under os.tmpdir(): `package.json` (`"type": "module"`) and the packed package installed (`installPacked`). Returns its directory. */
export async function consumerOfTarball(root: string, skip: readonly string[] = []): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "agentkit-packed-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "agentkit-consumer", private: true, type: "module" }));
  await installPacked(root, dir, { skip });
  return dir;
}
