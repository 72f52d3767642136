#!/usr/bin/env node
/**
 * The system programs the test suite drives for real, found or installed
 * before `npm test` runs (`npm test` calls this first; `.ci/run` runs `npm
 * test`, so nothing is installed twice):
 * - tmux: the terminal-prompt tests drive a real pseudo-terminal;
 * - PostgreSQL (initdb/pg_ctl only; no service is started): the shared-inbox,
 *   call-record and fleet tests;
 * - nginx (run in the foreground with a generated config): the hosted-fleet
 *   tests put it in front of three `agentkit host` processes;
 * - Chromium: the inbox page tests (playwright-core never downloads a browser);
 * - script (bsdutils): the Claude Code terminal tests run the real CLI on a
 *   pseudo-terminal;
 * - curl, runuser and setpriv (util-linux): the OAuth login tests play a
 *   second local user, and run as root the inbox-directory test drops root's
 *   write-anywhere capability.
 * Those missing are installed with Debian's packages in one `apt-get update`
 * and one install when this runs as root on Debian; otherwise it prints the
 * one line that installs them and exits non-zero, before anything is built.
 * A machine that has them all touches no package list. `AGENTKIT_SKIP_PREREQS=1`
 * skips the check (the tests needing a missing program then fail naming it).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";

/** `name` is on PATH. */
function onPath(name) {
  return spawnSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" }).status === 0;
}

/** Some `/usr/lib/postgresql/<version>/bin/initdb` exists. */
function hasPostgres() {
  const root = "/usr/lib/postgresql";
  return existsSync(root) && readdirSync(root).some((v) => existsSync(`${root}/${v}/bin/initdb`));
}

/** Each Debian package the suite needs, with how to tell it is there. */
const NEEDS = [
  ["tmux", () => onPath("tmux")],
  ["postgresql", hasPostgres],
  ["nginx", () => existsSync("/usr/sbin/nginx")],
  ["chromium", () => existsSync("/usr/lib/chromium/chromium")],
  ["curl", () => onPath("curl")],
  ["util-linux", () => onPath("runuser") && onPath("setpriv")],
  ["bsdutils", () => existsSync("/usr/bin/script")],
];

if (process.env.AGENTKIT_SKIP_PREREQS === "1") process.exit(0);
const missing = NEEDS.filter(([, present]) => !present()).map(([name]) => name);
if (missing.length === 0) process.exit(0);

const line = `apt-get update && apt-get install -y ${missing.join(" ")}`;
const root = typeof process.getuid === "function" && process.getuid() === 0;
if (!root || !onPath("apt-get")) {
  process.stderr.write(
    `npm test: the suite drives real ${missing.join(", ")}, missing here. Install them (Debian: ${line}, as root), or set AGENTKIT_SKIP_PREREQS=1 to run without them (their tests then fail naming what is missing).\n`,
  );
  process.exit(1);
}
process.stdout.write(`npm test: installing what the suite drives for real: ${missing.join(", ")} (Debian's packages)\n`);
const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
execFileSync("apt-get", ["install", "-y", "-qq", ...missing], { stdio: "inherit", env });
const still = NEEDS.filter(([name, present]) => missing.includes(name) && !present()).map(([name]) => name);
if (still.length) {
  process.stderr.write(`npm test: apt-get installed, yet ${still.join(", ")} still cannot be found\n`);
  process.exit(1);
}
