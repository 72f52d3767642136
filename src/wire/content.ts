/**
 * @module wire/content
 * The one content-to-text renderer: MCP content blocks (a tool result's
 * `content`, a prompt message, a CLI's tool_result) as the text an agent
 * reads. Text is kept; any other block becomes a marker the agent can
 * attribute (`[image content omitted]`).
 */

/** One content block as MCP and the CLIs send it (text, image, audio, resource, resource_link, ...). */
export interface ContentBlock {
  readonly type: string;
  readonly text?: unknown;
}

/** A `resource_link` block as one line: `[Resource link: <name>] <uri> (<mimeType>)`; the resource is not read. */
function resourceLinkLine(b: { uri: string; name?: unknown; mimeType?: unknown }): string {
  const name = typeof b.name === "string" && b.name !== "" ? b.name : b.uri;
  return `[Resource link: ${name}] ${b.uri}${typeof b.mimeType === "string" ? ` (${b.mimeType})` : ""}`;
}

/**
 * A block's text (a `resource_link` as a line naming its URI, unread), or `[<type> content omitted]` for anything that
 * is not text (`unknown` when it has no type).
 */
export function blockText(block: unknown): string {
  const b = block && typeof block === "object" ? (block as Partial<ContentBlock>) : undefined;
  if (b?.type === "text") return typeof b.text === "string" ? b.text : String(b.text ?? "");
  // A link is not followed (read on demand, by whoever reads the line): its URI and what it names, as Claude Code shows one.
  if (b?.type === "resource_link" && typeof (b as { uri?: unknown }).uri === "string")
    return resourceLinkLine(b as { uri: string; name?: unknown; mimeType?: unknown });
  return `[${typeof b?.type === "string" ? b.type : "unknown"} content omitted]`;
}

/**
 * Blocks as one string, joined with `separator` (`"\n"` for MCP results, as
 * the adapters render them; the CLIs' event streams join with `""`). A
 * string is returned as it is; anything else that is not an array of blocks
 * renders as JSON (`""` for null and undefined).
 */
export function contentText(content: unknown, separator = "\n"): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.length === 1 ? blockText(content[0]) : content.map(blockText).join(separator);
  return content === undefined || content === null ? "" : JSON.stringify(content);
}
