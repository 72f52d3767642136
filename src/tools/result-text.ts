/**
 * @module tools/result-text
 * A tool's return value as the text a model (or an MCP client) reads.
 */
import { isToolContent } from "./tool-content.js";

/** Render a tool's return value as the text fed back to the model (a `ToolContent` as its `text`). */
export function resultText(value: unknown): string {
  if (typeof value === "string") return value;
  if (isToolContent(value)) return value.text;
  if (value === undefined) return "";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
