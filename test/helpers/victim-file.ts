/**
 * @module test/helpers/victim-file
 * Test helper for the config-file fence: a file a bad write must not touch,
 * checked afterwards for its text and its mode.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";

/** Write `dir/victim.txt` ("precious\n", mode 0644); `intact()` expects both unchanged. */
export function victimFile(dir: string): { path: string; intact(): void } {
  const path = join(dir, "victim.txt");
  writeFileSync(path, "precious\n", { mode: 0o644 });
  return {
    path,
    intact: () => {
      expect(readFileSync(path, "utf8")).toBe("precious\n");
      expect(statSync(path).mode & 0o777).toBe(0o644);
    },
  };
}
