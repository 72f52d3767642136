/**
 * @module test/express/dev-issuer-files.test
 * The development issuer's token files across renewals: `stop()` removes
 * exactly the files it wrote, also where the filesystem keeps no birth time
 * (the identity then rests on the status-change time, which a rename sets),
 * and a renewal that fails halfway is said on stderr, never thrown from its
 * timer, and still leaves the file it did replace to `stop()`. vitest's clock
 * drives the renewals; the files are real, in the issuer's own directory.
 */
import fs, { existsSync, mkdirSync, readdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { join } from "node:path";
import { afterEach, expect, it, vi } from "vitest";
import { DEV_TOKEN_TTL_SEC, DevIssuer } from "../../src/express/dev-issuer.js";

const RENEWAL_MS = (DEV_TOKEN_TTL_SEC / 2) * 1000;
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const clean of cleanups.splice(0).reverse()) clean();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** A started issuer (renewals on vitest's clock), stopped and its directory removed after the test whatever happens. */
function startedIssuer(): DevIssuer {
  vi.useFakeTimers({ toFake: ["Date", "setInterval", "clearInterval"] });
  const issuer = new DevIssuer(new URL("http://127.0.0.1:1/mcp"));
  cleanups.push(() => {
    issuer.stop();
    rmSync(issuer.files.dir, { recursive: true, force: true });
  });
  issuer.start("tools", ["reports:write"]);
  return issuer;
}

/** `fs.lstatSync` and `fs.fstatSync` report no birth time (as on filesystems that keep none), for ESM importers too. */
function withoutBirthTimes(): void {
  const real = { lstatSync: fs.lstatSync, fstatSync: fs.fstatSync };
  const noBirth = <T>(st: T): T =>
    st && typeof st === "object" && "birthtimeNs" in st ? Object.assign(st, { birthtimeNs: 0n, birthtimeMs: 0n }) : st;
  Object.assign(fs, {
    lstatSync: (...args: Parameters<typeof fs.lstatSync>) => noBirth(real.lstatSync(...args)),
    fstatSync: (...args: Parameters<typeof fs.fstatSync>) => noBirth(real.fstatSync(...args)),
  });
  syncBuiltinESMExports();
  cleanups.push(() => {
    Object.assign(fs, real);
    syncBuiltinESMExports();
  });
}

it("stop() after renewals removes both files and the directory", () => {
  const issuer = startedIssuer();
  for (let i = 0; i < 3; i++) vi.advanceTimersByTime(RENEWAL_MS);
  expect(readdirSync(issuer.files.dir).sort()).toEqual(["authorization", "mcp-config.json"]);
  issuer.stop();
  expect(existsSync(issuer.files.dir)).toBe(false);
});

it("where the filesystem keeps no birth time, stop() after renewals still removes both files and the directory", () => {
  withoutBirthTimes();
  expect(fs.lstatSync(".", { bigint: true }).birthtimeNs).toBe(0n);
  const issuer = startedIssuer();
  vi.advanceTimersByTime(RENEWAL_MS);
  issuer.stop();
  expect(existsSync(issuer.files.dir) ? readdirSync(issuer.files.dir) : "gone").toBe("gone");
});

it("a renewal that fails halfway is said on stderr, not thrown; stop() still removes the file it did replace", () => {
  const stderr: string[] = [];
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => (stderr.push(String(chunk)), true));
  const issuer = startedIssuer();
  const { dir, authorization, mcpConfig } = issuer.files;
  // Something not a file where the MCP config goes: the renewal replaces the authorization file, then cannot rename over this.
  unlinkSync(mcpConfig);
  mkdirSync(mcpConfig);
  writeFileSync(join(mcpConfig, "kept"), "not the issuer's");
  expect(() => vi.advanceTimersByTime(RENEWAL_MS)).not.toThrow();
  expect(stderr.join("")).toMatch(
    new RegExp(
      `^mcpRouter: the development token files in ${dir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} could not be renewed \\(\\w*Error: EISDIR`,
    ),
  );
  expect(stderr.join("")).toContain("the current token stays good until it expires");
  expect(readdirSync(dir).sort(), "no half-made file left beside them").toEqual(["authorization", "mcp-config.json"]);
  issuer.stop();
  expect(existsSync(authorization)).toBe(false);
  expect(readdirSync(join(mcpConfig))).toEqual(["kept"]);
});
