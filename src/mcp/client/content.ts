/**
 * @module mcp/client/content
 * MCP results rendered as the text an agent reads: tool results, resource
 * reads and prompts. Text is kept; anything else becomes a marker the agent
 * can attribute (`[image content omitted]`), except resource blobs, which are
 * dropped (a read returns the text a person or model reads).
 */
import type { CallToolResult, GetPromptResult, ReadResourceResult } from "@modelcontextprotocol/client";
import { blockText, contentText, type ContentBlock } from "../../wire/content.js";
import type { ContentPart } from "../../contracts/content-part.js";
import { ToolContent } from "../../tools/tool-content.js";

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

/**
 * A tool result with its images kept: a `ToolContent` (text form as
 * `toolResultText` renders it, plus parts — text blocks as text, image blocks
 * as images, any other block as its marker) when the result has an image
 * block; otherwise the same string `toolResultText` returns.
 */
export function toolResultContent(result: CallToolResult): string | ToolContent {
  const text = toolResultText(result);
  const blocks = (result.content ?? []) as readonly (ContentBlock & { data?: unknown; mimeType?: unknown })[];
  if (!blocks.some((b) => b.type === "image")) return text;
  const parts: ContentPart[] = blocks.map((b) =>
    b.type === "image" && typeof b.data === "string" && typeof b.mimeType === "string"
      ? { type: "image", data: b.data, mimeType: b.mimeType }
      : { type: "text", text: blockText(b) },
  );
  if (result.isError) parts.unshift({ type: "text", text: "ERROR:" });
  return new ToolContent(text, parts);
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
