/**
 * @module test/helpers/hygiene
 * Per-test-file hygiene (installed by test/file-hygiene.setup.ts): process
 * warnings are collected and fail the file unless expected; the worker's own
 * LISTEN sockets are read from /proc so a server a test forgot to close fails
 * the file. The state lives on `globalThis`, so the setup file and a test file
 * that imports this module agree even if each gets its own module instance.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** One LISTEN socket of this process: its inode and `address:port`. */
export interface ListenSocket {
  readonly inode: string;
  readonly address: string;
}

interface HygieneState {
  warnings: Error[];
  /** `true`: every warning is expected; a list: warnings matching one of them are. */
  expected: true | Array<string | RegExp>;
}

const KEY = Symbol.for("agentkit:test-hygiene");

/** The current file's state (created on first use; reset by `resetHygiene()`). */
export function hygieneState(): HygieneState {
  const g = globalThis as { [KEY]?: HygieneState };
  g[KEY] ??= { warnings: [], expected: [] };
  return g[KEY];
}

/** Start a test file afresh: no warnings collected, none expected. */
export function resetHygiene(): void {
  const s = hygieneState();
  s.warnings = [];
  s.expected = [];
}

/**
 * Opt this test file out of the no-warnings check: with no argument every
 * process warning is expected; otherwise only warnings whose `name: message`
 * contains a given string or matches a given RegExp. Call it at the top level
 * of the file or inside the test that causes the warning.
 */
export function expectWarnings(...matching: Array<string | RegExp>): void {
  const s = hygieneState();
  if (matching.length === 0) s.expected = true;
  else if (s.expected !== true) s.expected.push(...matching);
}

/** The collected warnings nobody said to expect, as `name: message` lines. */
export function unexpectedWarnings(): string[] {
  const { warnings, expected } = hygieneState();
  if (expected === true) return [];
  return warnings
    .map((w) => `${w.name}: ${w.message}`)
    .filter((line) => !expected.some((m) => (typeof m === "string" ? line.includes(m) : m.test(line))));
}

/** `0100007F:1F90` (little-endian IPv4, or 32 hex digits of IPv6) as `127.0.0.1:8080` / `[::1]:8080`. */
function decodeAddress(hex: string): string {
  const [ip = "", port = "0"] = hex.split(":");
  const p = parseInt(port, 16);
  if (ip.length === 8) return `${[3, 2, 1, 0].map((i) => parseInt(ip.slice(i * 2, i * 2 + 2), 16)).join(".")}:${p}`;
  // IPv6: four 32-bit words, each little-endian.
  const words = (ip.match(/.{8}/g) ?? []).map((w) => (w.match(/../g) ?? []).reverse().join(""));
  const groups = words.join("").match(/.{4}/g) ?? [];
  return `[${groups.map((g) => g.replace(/^0+(?=.)/, "")).join(":")}]:${p}`;
}

/**
 * This process's TCP sockets in state LISTEN (0A): the socket inodes behind
 * /proc/self/fd joined with /proc/net/tcp and /proc/net/tcp6. Linux only.
 */
export function ownListenSockets(): ListenSocket[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // closed meanwhile (the directory listing's own fd, for one)
    }
  }
  const found: ListenSocket[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "latin1");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== "0A") continue;
      if (inodes.has(f[9]!)) found.push({ inode: f[9]!, address: decodeAddress(f[1]!) });
    }
  }
  return found;
}
