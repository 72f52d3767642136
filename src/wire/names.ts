/**
 * @module wire/names
 * The `mcp__<server>__<tool>` spelling, and the rules served names follow:
 * server names are checked and refused, tool names are sanitised to
 * `[A-Za-z0-9_-]`, and a qualified name must fit in 64 characters.
 */
import { AgentkitError } from "../errors/agentkit.error.js";

/** Model APIs cut tool names at 64 characters; a qualified name must fit. */
export const MAX_QUALIFIED_NAME_LENGTH = 64;

const SERVER_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * `mcp__<server>__<tool>`: how the Claude CLI (and Codex's namespace) address
 * a served tool. Pure spelling; see `checkQualifiedName` for the length rule.
 */
export function qualifiedName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`;
}

/**
 * Refuse (never rewrite) a server name that is not one plain token: empty,
 * outside `[A-Za-z0-9_-]`, or holding `__` (which would make
 * `mcp__<server>__<tool>` ambiguous). You typed that name yourself and hold it
 * in a string elsewhere, so a silent rewrite would desynchronise the two.
 * Throws an `AgentkitError` (code `mcp_name`).
 */
export function checkServerName(name: unknown): string {
  if (typeof name !== "string" || !SERVER_NAME.test(name)) {
    throw new AgentkitError(
      "mcp_name",
      `invalid MCP server name ${JSON.stringify(name)}: use one token of [A-Za-z0-9_-] (it becomes part of every ` +
        `qualified tool name, mcp__<server>__<tool>, which callers paste into --allowed-tools and shell arguments). ` +
        `Server names are refused, not rewritten.`,
    );
  }
  if (name.includes("__")) {
    throw new AgentkitError(
      "mcp_name",
      `invalid MCP server name '${name}': it contains '__', which makes mcp__${name}__<tool> ambiguous (the CLI ` +
        `splits qualified names on '__'). Server names are refused, not rewritten.`,
    );
  }
  return name;
}

/** A tool name with everything outside `[A-Za-z0-9_-]` replaced by `_` (`run.check` -> `run_check`). */
export function sanitiseToolName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_");
}

/**
 * Refuse a qualified name longer than 64 characters: model APIs cut tool names
 * at 64, so the model would be shown a name that matches nothing. Throws
 * an `AgentkitError` (code `mcp_name`) naming the tool, the length and the fix.
 */
export function checkQualifiedName(server: string, tool: string, original = tool): string {
  const q = qualifiedName(server, tool);
  if (q.length > MAX_QUALIFIED_NAME_LENGTH) {
    throw new AgentkitError(
      "mcp_name",
      `tool '${original}' cannot be served as '${q}': the qualified name is ${q.length} characters and model APIs ` +
        `cut tool names at ${MAX_QUALIFIED_NAME_LENGTH}, so the model would see a truncated name that matches no ` +
        `tool. Shorten the tool name or the server name '${server}' (at most ` +
        `${MAX_QUALIFIED_NAME_LENGTH - qualifiedName(server, "").length} characters remain for the tool).`,
    );
  }
  return q;
}
