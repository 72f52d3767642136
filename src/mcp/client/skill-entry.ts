/**
 * @module mcp/client/skill-entry
 * What the client gives of a server's skill (the MCP Skills extension): its
 * listed entry and, read, its instructions and files. Below `MCPClient`
 * (which builds them) and `mcpSkills()` (which collects them).
 */
import type { Skill } from "@modelcontextprotocol/client/ext/skills";

/** One skill a server lists: its frontmatter's name and description, its `SKILL.md` URI and its files. */
export interface McpSkillEntry {
  /** The frontmatter `name` (the skill's folder name). */
  readonly name: string;
  /** The frontmatter `description`: when to use the skill. */
  readonly description: string;
  /** The `SKILL.md` resource URI (`skill://<skill>/SKILL.md`). */
  readonly uri: string;
  /** The whole frontmatter, as the server listed it. */
  readonly frontmatter: Readonly<Record<string, unknown>>;
  /**
   * The skill's files, relative to its folder (`SKILL.md`, `references/GUIDE.md`), or `"dynamic"` when the server does
   * not enumerate them.
   */
  readonly files: readonly string[] | "dynamic";
}

/** A skill read: its entry, its `SKILL.md` instructions, and its other files on demand. */
export interface McpSkill extends McpSkillEntry {
  /** The `SKILL.md` markdown after the frontmatter: the instructions, read and verified when the skill was read. */
  readonly instructions: string;
  /**
   * One of the skill's files (a path relative to its folder), read now and
   * checked against the listed digest: its text, or its bytes when the
   * server sent binary content.
   *
   * @throws McpRequestError when the read fails or the file does not match its digest (`cause` names the check).
   */
  read(path: string): Promise<string | Uint8Array>;
}

/** The skill's entry in this package's shape. */
export function skillEntry(skill: Skill): McpSkillEntry {
  const root = skill.uri.slice(0, skill.uri.length - "SKILL.md".length);
  const files =
    skill.resources === "dynamic"
      ? "dynamic"
      : Object.freeze(skill.resources.map((r) => (r.uri.startsWith(root) ? decodeURIComponent(r.uri.slice(root.length)) : r.uri)));
  return Object.freeze({
    name: skill.frontmatter.name,
    description: skill.frontmatter.description,
    uri: skill.uri,
    frontmatter: Object.freeze({ ...skill.frontmatter }),
    files,
  });
}
