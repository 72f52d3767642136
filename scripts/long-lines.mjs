#!/usr/bin/env node
/**
 * Lint: source lines over 140 characters — what the formatter cannot split (a
 * long URL, SQL or CSS inside one literal) — stay at most 100 in `src/` (or
 * the folder given as the first argument). Prints the count; when over, the
 * files with the most, and exits 1.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const WIDTH = 140;
const MOST = 100;
const root = process.argv[2] ?? "src";

/** Every `.ts` file under `dir`. */
function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

const byFile = new Map();
for (const f of files(root)) {
  const n = readFileSync(f, "utf8")
    .split("\n")
    .filter((l) => l.length > WIDTH).length;
  if (n) byFile.set(f, n);
}
const total = [...byFile.values()].reduce((a, b) => a + b, 0);
if (total > MOST) {
  const worst = [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 10);
  console.error(`${root}/ has ${total} lines over ${WIDTH} characters (at most ${MOST}); split long messages into parts. Most in:`);
  for (const [f, n] of worst) console.error(`  ${f}: ${n}`);
  process.exit(1);
}
console.log(`${root}/: ${total} lines over ${WIDTH} characters (at most ${MOST})`);
