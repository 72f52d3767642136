/**
 * @module util/package-version
 * This package's version, from its own package.json (two folders up from
 * both `src/util` and `dist/util`): what `agentkit --version` prints and the
 * tracing scope's version.
 */
import { createRequire } from "node:module";

let version: string | undefined;

/** The version in this package's package.json, read once. */
export function packageVersion(): string {
  return (version ??= (createRequire(import.meta.url)("../../package.json") as { version: string }).version);
}
