/**
 * @module test/helpers/run-sample
 * Test helper: run a built sample (`build/samples/<name>.js`, from `npm run build`) and collect its stdout.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

/** The package root. */
export const ROOT = join(import.meta.dirname, "..", "..");

/**
 * Run `build/samples/<name>.js` with node; resolve its stdout. Rejects when it
 * exits non-zero, writes anything to stderr, or runs past 20 s (then it is killed).
 */
export function runSample(name: string, env: Record<string, string> = {}): Promise<string> {
  const file = join(ROOT, "build", "samples", `${name}.js`);
  if (!existsSync(file)) throw new Error(`${file} is missing: run npm run build first`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
    let out = "";
    let err = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString()));
    child.stderr.on("data", (b: Buffer) => (err += b.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0 && !err) resolve(out);
      else reject(new Error(`${name} exited with ${code ?? signal}; stderr: ${err}`));
    });
  });
}

/**
 * A sample's `label: value` lines as a record, in printed order: the label is
 * the text before the first `: ` (letters, digits, `_`, spaces, `.`, `,`;
 * leading indentation ignored), the value the rest with its padding trimmed.
 * Lines that are not of that shape (`Read -> {...}`, `a | b`) are skipped; a
 * label printed twice throws, so a test never reads the wrong one.
 */
export function printedFields(out: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of out.split("\n")) {
    const m = /^\s*([A-Za-z_][\w .,]*?):\s+(.*)$/.exec(line);
    if (!m) continue;
    const [, label, value] = m as unknown as [string, string, string];
    if (label in fields) throw new Error(`the label ${JSON.stringify(label)} is printed twice in:\n${out}`);
    fields[label] = value.trimEnd();
  }
  return fields;
}
