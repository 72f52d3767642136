/**
 * @module test/build/package-contents.test
 * What `npm pack` would publish, read from npm itself: every source map points
 * at a file the tarball ships (a stack trace or "go to definition" never names
 * a file that is not there), and installing the package runs no script of its
 * own (the build runs in `prepack`, before publishing, not in `prepare`);
 * every relative link of the shipped Markdown pages (README and the guides in
 * docs/) names a shipped file, and the samples they name are links into the
 * repository;
 * and package.json says where the project lives (repository, homepage, bugs);
 * the compiled inbox page scripts ship.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { buildIfMissing } from "../helpers/build-if-missing.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The shipped Markdown pages a user reads: the top-level pages and the guides in docs/. */
function shippedPages(files: readonly string[]): string[] {
  return files.filter((f) => f.endsWith(".md") && (!f.includes("/") || /^docs\/[^/]+\.md$/.test(f)));
}

let packed: readonly string[] | undefined;

/** The files `npm pack` would put in the tarball (no script runs), asked of npm once for the file's tests (3 s of CPU a time). */
function packedFiles(): readonly string[] {
  return (packed ??= (
    JSON.parse(
      execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }),
    ) as Array<{ files: Array<{ path: string }> }>
  )[0]!.files.map((f) => f.path));
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

  it("every relative link or image in the shipped Markdown pages (the guides in docs/ included) names a file the tarball ships", () => {
    const files = packedFiles();
    const shipped = new Set(files);
    const pages = shippedPages(files);
    expect(pages).toEqual(expect.arrayContaining(["README.md", "nest-cli-free.md", "docs/serving.md", "docs/testing.md"]));
    const broken: string[] = [];
    for (const page of pages) {
      for (const [, target] of readFileSync(join(ROOT, page), "utf8").matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
        if (!/^[a-z]+:/.test(target!) && !shipped.has(posix.normalize(posix.join(posix.dirname(page), target!)))) broken.push(`${page} -> ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("the samples the shipped pages name (not shipped) are links to where they live in the repository, each naming a path that exists", () => {
    const { homepage } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { homepage: string };
    const wrong: string[] = [];
    let linked = 0;
    // CONTRIBUTING.md is for a checkout, where samples/ is at hand
    for (const page of shippedPages(packedFiles()).filter((p) => p !== "CONTRIBUTING.md")) {
      const text = readFileSync(join(ROOT, page), "utf8");
      for (const [, url] of text.matchAll(/\]\((\S*samples\/[^)\s]*)\)/g)) {
        const path = url!.startsWith(`${homepage}/tree/main/`) ? url!.slice(`${homepage}/tree/main/`.length) : undefined;
        if (path === undefined || !existsSync(join(ROOT, path))) wrong.push(`${page} -> ${url}`);
        else linked++;
      }
      // a samples path outside a link, or a built sample, is a file the user does not have
      for (const [mention] of text.matchAll(/(?<![/\w])(?:build\/)?samples\/[\w./-]*/g)) if (!text.includes(`/tree/main/${mention}`)) wrong.push(`${page}: ${mention}`);
    }
    expect(wrong).toEqual([]);
    expect(linked).toBeGreaterThan(0);
  });

  it("the README shows the two commands of a fresh clone: npm ci && npm start (the demo), npm ci && npm test (the suite)", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(readme).toMatch(/^npm ci && npm start\b/m);
    expect(readme).toMatch(/^npm ci && npm test\b/m);
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
