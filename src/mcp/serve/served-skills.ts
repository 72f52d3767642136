/**
 * @module mcp/serve/served-skills
 * A folder of skills served beside a registry's tools (the MCP Skills
 * extension, `io.modelcontextprotocol/skills`, SEP-2640), through the SDK's
 * own `ext/skills`: its catalog reads the folder, computes the digests and
 * answers `skills/list`, `skills/get`, `resources/directory/read` and the
 * `skill://` reads. This module loads the catalog once (checked strictly, so
 * a skill the SDK refuses fails the start, naming its file) and attaches it
 * to each session's server (`attachSkills`, in `sdk-reach`).
 */
import { statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { SkillCatalog } from "@modelcontextprotocol/server/ext/skills";
import { OptionsError } from "../../errors/options.error.js";
import { describeValue } from "../../util/format.js";
import { getLogger } from "../../util/logger.js";
import { attachSkills, type AttachedSkills } from "../sdk-reach.js";
import type { SdkServer } from "../peers/sdk-server.js";
import { sdkSkills } from "../peers/sdk-server.js";

/**
 * The `skills` option: the path of a folder of skill folders (each
 * `<name>/SKILL.md` plus its files; relative paths from the process's working
 * directory), or `{ dir, scopes }` where a hosted module's skills need every
 * scope in `scopes` (a token without them neither lists nor reads a skill).
 */
export type SkillsOption = string | { readonly dir: string; readonly scopes?: readonly string[] };

const ACCEPTED = "a folder path (string) or { dir: string, scopes?: string[] }, the folder holding one folder per skill (<name>/SKILL.md)";

/** The catalog of one served folder of skills, attached to each session's server. */
export class ServedSkills {
  /** The scopes a hosted token needs to see and read these skills (none: any token). */
  readonly scopes?: readonly string[];

  constructor(
    /** The SDK's catalog of the folder (its entries carry the digests clients verify). */
    readonly catalog: SkillCatalog,
    /** The absolute folder served. */
    readonly dir: string,
    scopes: readonly string[] | undefined,
  ) {
    if (scopes?.length) this.scopes = Object.freeze([...scopes]);
  }

  /** The skills' names (their frontmatter `name`), sorted by URI as listed. */
  get names(): readonly string[] {
    return this.catalog.entries.map((s) => s.frontmatter.name);
  }

  /** Serve the skills on `server` (before it connects): the extension's methods and capability, and its `skill://` reads. */
  attach(server: SdkServer): AttachedSkills {
    return attachSkills(this.catalog, server);
  }
}

/**
 * The `skills` option checked (its shape; the folder is read by
 * `loadServedSkills`): the absolute folder and the scopes, or `undefined`
 * when not given.
 *
 * @throws OptionsError naming `where`, what was given and what is accepted.
 */
export function checkSkillsOption(
  option: unknown,
  where: string,
): { readonly dir: string; readonly scopes?: readonly string[] } | undefined {
  if (option === undefined) return undefined;
  const given = typeof option === "string" ? { dir: option } : (option as { dir?: unknown; scopes?: unknown } | null);
  if (!given || typeof given !== "object" || typeof given.dir !== "string" || given.dir === "") {
    throw new OptionsError(where, "skills", `${where}: skills must be ${ACCEPTED}, got ${describeValue(option)}`);
  }
  const unknown = Object.keys(given).filter((k) => k !== "dir" && k !== "scopes");
  if (unknown.length)
    throw new OptionsError(where, "skills", `${where}: skills got unknown key(s) ${unknown.join(", ")}; accepted: dir, scopes`);
  const scopes = given.scopes;
  if (scopes !== undefined && !(Array.isArray(scopes) && scopes.every((s) => typeof s === "string" && s !== ""))) {
    throw new OptionsError(
      where,
      "skills",
      `${where}: skills.scopes must be an array of non-empty scope names, got ${describeValue(scopes)}`,
    );
  }
  return { dir: resolve(given.dir), ...(scopes ? { scopes: scopes as string[] } : {}) };
}

/**
 * Load the folder of skills `option` names, strictly: every skill the SDK's
 * catalog would skip with a warning (a malformed `SKILL.md`, a name that
 * does not match its folder, a symlink, a skill over the size limits) is
 * an error here instead, so a module never starts serving fewer skills than
 * its folder holds.
 *
 * @throws OptionsError (option `skills`) for an option of the wrong shape, a
 *   folder that does not exist or is not a folder, or a folder with skill
 *   problems — each problem on its own line, with the file's full path.
 */
export async function loadServedSkills(option: SkillsOption, where: string): Promise<ServedSkills> {
  const { dir, scopes } = checkSkillsOption(option, where) ?? { dir: "" };
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new OptionsError(where, "skills", `${where}: the skills folder ${dir} does not exist; skills must be ${ACCEPTED}`);
  }
  if (!isDir) throw new OptionsError(where, "skills", `${where}: the skills path ${dir} is not a folder; skills must be ${ACCEPTED}`);
  const { loadSkills } = sdkSkills();
  let catalog: SkillCatalog;
  try {
    // After loading, a problem is a read that found a file changed: the SDK answers the client with an error and warns here.
    catalog = await loadSkills(dir, { strict: true, onWarning: (w) => getLogger().warn(`skills: ${join(dir, w.path)}: ${w.message}`) });
  } catch (err) {
    const problems = (err as { problems?: readonly { path: string; message: string }[] }).problems;
    if (!problems?.length)
      throw new OptionsError(where, "skills", `${where}: the skills folder ${dir} could not be read: ${(err as Error).message}`, {
        cause: err,
      });
    const lines = problems.map((p) => `  ${join(dir, p.path)}: ${p.message}`).join("\n");
    throw new OptionsError(
      where,
      "skills",
      `${where}: the skills folder ${dir} has ` +
        `${problems.length === 1 ? "a problem" : `${problems.length} problems`} the skills extension ` +
        `refuses:\n${lines}`,
      { cause: err },
    );
  }
  return new ServedSkills(catalog, dir, scopes);
}

/** `option` loaded when given (see `loadServedSkills`); `undefined` when not. */
export async function loadSkillsOption(option: SkillsOption | undefined, where: string): Promise<ServedSkills | undefined> {
  return option === undefined ? undefined : loadServedSkills(option, where);
}
