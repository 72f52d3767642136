/**
 * @module tools/result-text
 * A tool's return value as the text a model (or an MCP client) reads.
 */
import { isToolContent } from "./tool-content.js";
import { blockText, contentBlocksOf, isRichToolResult } from "./mcp-content.js";

/**
 * Render a tool's return value as the text fed back to the model: a string as
 * it is, a `ToolContent` as its `text`, MCP content blocks (or a rich result)
 * as their text joined by newlines (binary content as markers; a rich result
 * with only `structuredContent` as its JSON), anything else as JSON.
 */
export function resultText(value: unknown): string {
  if (typeof value === "string") return value;
  if (isToolContent(value)) return value.text;
  if (value === undefined) return "";
  const blocks = contentBlocksOf(value);
  if (blocks) {
    if (blocks.length === 0 && isRichToolResult(value) && value.structuredContent) return JSON.stringify(value.structuredContent);
    return blocks.map(blockText).join("\n");
  }
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
