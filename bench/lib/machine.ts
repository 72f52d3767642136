/**
 * @module bench/lib/machine
 * A one-line description of the machine and runtime, for the report header.
 */
import { cpus, totalmem, loadavg, release } from "node:os";
import { readFileSync } from "node:fs";

/** The installed version of `pkg`, read from node_modules (some packages do not export their package.json). */
function version(pkg: string): string {
  try {
    const file = new URL(`../../../node_modules/${pkg}/package.json`, import.meta.url);
    return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
  } catch {
    return "?";
  }
}

/** `2 x AMD EPYC ..., 23 GiB, Linux 6.x, Node v20.20.2` plus the pinned versions measured. */
export function machine(): { line: string; versions: string; load: string } {
  const c = cpus();
  const model = c[0]?.model.trim() ?? "unknown CPU";
  return {
    line: `${c.length} x ${model}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB RAM, Linux ${release()}, Node ${process.version}`,
    versions: [
      "@modelcontextprotocol/client",
      "@modelcontextprotocol/server",
      "@modelcontextprotocol/node",
      "@modelcontextprotocol/sdk",
      "@opentelemetry/sdk-trace",
      "fastmcp",
      "express",
      "zod",
    ]
      .map((p) => `${p} ${version(p)}`)
      .join(", "),
    load: loadavg()
      .map((x) => x.toFixed(2))
      .join(" / "),
  };
}
