/**
 * @module models/system-prompt
 * The conversation's system messages as the one system prompt both APIs take.
 */
import type { Message } from "../contracts/llm.js";

/** The non-empty system messages' text, joined by a blank line ("" when there are none). */
export function systemPrompt(messages: readonly Message[]): string {
  let out = "";
  for (const m of messages) if (m.role === "system" && m.content) out = out ? `${out}\n\n${m.content}` : m.content;
  return out;
}
