/**
 * @module mcp/client/content
 * MCP results rendered as the text an agent reads: tool results, resource
 * reads and prompts. Text is kept; anything else becomes a marker the agent
 * can attribute (`[image content omitted]`), except resource blobs, which are
 * dropped (a read returns the text a person or model reads).
 */
import type { CallToolResult, GetPromptResult, ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { blockText, contentText } from "../../wire/content.js";

/**
 * A tool result as one string: blocks joined with `\n`, non-text blocks as
 * markers; a result with no content but `structuredContent` renders that as
 * JSON; `isError: true` results become `ERROR: <text>`.
 */
export function toolResultText(result: CallToolResult): string {
  const blocks = result.content ?? [];
  let text = contentText(blocks);
  if (!blocks.length && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  return result.isError ? `ERROR: ${text}` : text;
}

/** The text contents of a resource read, joined with `\n`; binary blobs are dropped. */
export function resourceText(result: ReadResourceResult): string {
  return result.contents
    .map((c) => ("text" in c && typeof c.text === "string" ? c.text : undefined))
    .filter((t): t is string => t !== undefined)
    .join("\n");
}

/** A rendered prompt as text: each message's content (text, or a marker), joined with `\n`. */
export function promptText(result: GetPromptResult): string {
  return result.messages.map((m) => blockText(m.content)).join("\n");
}
