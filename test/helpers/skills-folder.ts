/**
 * @module test/helpers/skills-folder
 * A folder of skills on disk for the skills tests (`<name>/SKILL.md` plus
 * files), in a fresh temp directory, and the sha256 digest a client checks.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** The two skills most tests serve: `review` (with a reference file) and `deploy`. */
export const TWO_SKILLS: Readonly<Record<string, string>> = {
  "review/SKILL.md":
    "---\nname: review\ndescription: Review a change for bugs and style.\n---\n\n# Review\n\nRead references/GUIDE.md first.\n",
  "review/references/GUIDE.md": "# Guide\n\nLook for off-by-one errors.\n",
  "deploy/SKILL.md": "---\nname: deploy\ndescription: Deploy a service safely.\n---\n\nRun the checks, then deploy.\n",
};

/** A fresh folder holding `files` (paths relative to it); `close()` removes it. */
export function skillsFolder(files: Readonly<Record<string, string>> = TWO_SKILLS): { dir: string; close: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "agentkit-skills-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return { dir, close: () => rmSync(dir, { recursive: true, force: true }) };
}

/** `sha256:<hex>` of `text`'s UTF-8 bytes: the digest the skills extension publishes. */
export function digestOf(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}
