/**
 * @module test/build/package-contents.test
 * What `npm pack` would publish, read from npm itself: every source map points
 * at a file the tarball ships (a stack trace or "go to definition" never names
 * a file that is not there), and installing the package runs no script of its
 * own (the build runs in `prepack`, before publishing, not in `prepare`);
 * every relative link of the shipped Markdown pages names a shipped file;
 * and package.json says where the project lives (repository, homepage, bugs);
 * the compiled inbox page scripts ship.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { buildIfMissing } from "../helpers/build-if-missing.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The files `npm pack` would put in the tarball (no script runs). */
function packedFiles(): string[] {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  return (JSON.parse(out) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path);
}

beforeAll(() => buildIfMissing(ROOT, ["dist/index.js"]), 300_000);

describe("the published package", () => {
  it("every source map's sources are in the tarball", () => {
    const files = packedFiles();
    const shipped = new Set(files);
    const maps = files.filter((f) => f.endsWith(".map"));
    expect(maps.length).toBeGreaterThan(100);
    const missing: string[] = [];
    for (const map of maps) {
      const { sources } = JSON.parse(readFileSync(join(ROOT, map), "utf8")) as { sources: string[] };
      for (const source of sources) {
        const path = posix.normalize(posix.join(dirname(map), source));
        if (!shipped.has(path)) missing.push(`${map} -> ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("ships the compiled inbox page scripts the page inlines (and their sources)", () => {
    const shipped = new Set(packedFiles());
    for (const s of ["login", "inbox"]) {
      expect(shipped.has(`dist/askers/inbox/page/${s}.js`), `dist/askers/inbox/page/${s}.js`).toBe(true);
      expect(shipped.has(`src/askers/inbox/page/${s}.ts`), `src/askers/inbox/page/${s}.ts`).toBe(true);
    }
  });

  it("every relative link or image in the shipped Markdown pages names a file the tarball ships", () => {
    const files = packedFiles();
    const shipped = new Set(files);
    const pages = files.filter((f) => f.endsWith(".md") && !f.includes("/"));
    expect(pages).toEqual(expect.arrayContaining(["README.md", "nest-cli-free.md"]));
    const broken: string[] = [];
    for (const page of pages) {
      for (const [, target] of readFileSync(join(ROOT, page), "utf8").matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
        if (!/^[a-z]+:/.test(target!) && !shipped.has(posix.normalize(target!))) broken.push(`${page} -> ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("package.json names the repository, homepage and issue tracker", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { repository?: { type: string; url: string }; homepage?: string; bugs?: { url: string } };
    expect(pkg.repository).toMatchObject({ type: "git", url: expect.stringMatching(/^git\+https:\/\/\S+\.git$/) });
    expect(pkg.homepage).toMatch(/^https:\/\/\S+$/);
    expect(pkg.bugs?.url).toMatch(/^https:\/\/\S+\/issues$/);
  });

  it("installing it runs no script of its own (build in prepack)", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    for (const hook of ["preinstall", "install", "postinstall", "prepare"]) expect(pkg.scripts[hook], hook).toBeUndefined();
    expect(pkg.scripts.prepack).toMatch(/npm run build/);
  });
});
