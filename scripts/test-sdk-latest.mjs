#!/usr/bin/env node
/**
 * @module scripts/test-sdk-latest
 * `npm run test:sdk-latest`: run the MCP client and serving tests against the
 * newest 1.x SDK the project pins as `@modelcontextprotocol/sdk-latest`
 * (an npm alias in devDependencies, so `npm ci` installs it from the lock
 * and nothing is fetched here). The peer range is `^1.32.2`; the main suite
 * runs on the lower bound (`@modelcontextprotocol/sdk`), this on the newest.
 *
 * How: a temporary copy of the tree (src, test, dist, build, configs —
 * hard links where possible) whose node_modules is a directory of symlinks to
 * the project's, except `@modelcontextprotocol/sdk`, which points at the
 * alias. Everything resolved from the copy (the package's `createRequire`
 * loads, the tests' imports, the fixture servers) gets the newest SDK.
 * Needs `npm run build` first (dist/ and build/; `npm test` builds them).
 *
 * To test another 1.x: `npm install --save-exact --save-dev
 * @modelcontextprotocol/sdk-latest@npm:@modelcontextprotocol/sdk@<version>`.
 *
 * Usage: node scripts/test-sdk-latest.mjs [vitest file filters...]
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
const NM = join(ROOT, "node_modules");
const SCOPE = "@modelcontextprotocol";
const ALIAS = join(NM, SCOPE, "sdk-latest");
/** What the copy holds besides node_modules. */
const COPIED = [
  "src",
  "test",
  "dist",
  "build",
  "samples",
  "package.json",
  "tsconfig.json",
  "tsconfig.base.json",
  "tsconfig.build.json",
  "vitest.config.ts",
];
/** The default test set: the client and serving directories, less the real-CLI run (the CLIs bring their own MCP clients). */
const DEFAULT_TESTS = ["test/mcp-client", "test/mcp-serve"];
const EXCLUDED = ["test/mcp-serve/real-clis.test.ts"];

function version(dir) {
  return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version;
}

function fail(message) {
  process.stderr.write(`test:sdk-latest: ${message}\n`);
  process.exit(2);
}

/** Copy `from` to `to`, hard-linking files (a plain copy across devices). */
function copy(from, to) {
  try {
    spawnSync("cp", ["-al", from, to], { stdio: "ignore" });
    if (existsSync(to)) return;
  } catch {
    // no cp: copy below
  }
  cpSync(from, to, { recursive: true });
}

/** node_modules for the copy: a symlink per entry, the SDK swapped for the alias, the package itself pointing at the copy. */
function linkModules(copyRoot) {
  const nm = join(copyRoot, "node_modules");
  mkdirSync(join(nm, SCOPE), { recursive: true });
  for (const entry of readdirSync(NM)) {
    if (entry === SCOPE || entry === "arc-agentkit") continue;
    symlinkSync(join(NM, entry), join(nm, entry));
  }
  for (const entry of readdirSync(join(NM, SCOPE))) {
    if (entry === "sdk" || entry === "sdk-latest") continue;
    symlinkSync(join(NM, SCOPE, entry), join(nm, SCOPE, entry));
  }
  symlinkSync(ALIAS, join(nm, SCOPE, "sdk"));
  symlinkSync(copyRoot, join(nm, "arc-agentkit"));
}

function main() {
  if (!existsSync(ALIAS)) fail("the @modelcontextprotocol/sdk-latest alias is not installed: run npm ci");
  for (const dir of ["dist", "build"]) if (!existsSync(join(ROOT, dir))) fail(`${dir}/ is missing: run npm run build first`);
  const latest = version(ALIAS);
  const base = version(join(NM, SCOPE, "sdk"));
  const copyRoot = realpathSync(mkdtempSync(join(tmpdir(), "sdk-latest-run-")));
  let status = 1;
  try {
    for (const item of COPIED) if (existsSync(join(ROOT, item))) copy(join(ROOT, item), join(copyRoot, item));
    linkModules(copyRoot);
    // The switch took: the package's own loader, from the copy, resolves the alias.
    const seen = realpathSync(createRequire(join(copyRoot, "src", "mcp", "sdk.ts")).resolve(`${SCOPE}/sdk/types.js`));
    if (!seen.startsWith(realpathSync(ALIAS) + sep)) throw new Error(`the copy resolves the SDK to ${seen}, not the alias`);
    process.stdout.write(`test:sdk-latest: @modelcontextprotocol/sdk ${latest} (the main suite runs on ${base}), in ${copyRoot}\n`);
    const filters = process.argv.slice(2);
    const args = [
      join(NM, "vitest", "vitest.mjs"),
      "run",
      ...(filters.length ? filters : DEFAULT_TESTS),
      ...EXCLUDED.flatMap((e) => ["--exclude", e]),
    ];
    const run = spawnSync(process.execPath, args, {
      cwd: copyRoot,
      stdio: "inherit",
      env: { ...process.env, AGENTKIT_SDK_UNDER_TEST: latest },
    });
    status = run.status ?? 1;
    process.stdout.write(`test:sdk-latest: @modelcontextprotocol/sdk ${latest}: ${status === 0 ? "passed" : `FAILED (exit ${status})`}\n`);
  } finally {
    rmSync(copyRoot, { recursive: true, force: true });
  }
  process.exitCode = status;
}

try {
  main();
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}
