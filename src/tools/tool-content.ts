/**
 * @module tools/tool-content
 * A tool result that carries content parts (text and images) besides its text
 * form, for models that can look at images. Opt-in: a tool returns one only
 * when asked to keep non-text content; everything else stays text.
 */

import type { ContentPart } from "../contracts/content-part.js";

const BRAND = Symbol.for("agentkit:tool-content");

/**
 * A tool result with parts. `text` is what a text-only model reads (images as
 * `[image content omitted]` markers); `parts` is what a vision-capable
 * provider sends. Recognised by a `Symbol.for` brand, so two copies of the
 * package agree (see `isToolContent`).
 */
export class ToolContent {
  readonly [BRAND] = true;
  readonly text: string;
  readonly parts: readonly ContentPart[];

  constructor(text: string, parts: readonly ContentPart[]) {
    this.text = text;
    this.parts = Object.freeze(parts.map((p) => Object.freeze({ ...p })));
    Object.freeze(this);
  }
}

/** True when `value` is a `ToolContent` (from this or another copy of the package). */
export function isToolContent(value: unknown): value is ToolContent {
  return typeof value === "object" && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
}
