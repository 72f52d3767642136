/**
 * @module tools/mcp-content
 * MCP content blocks as plain data (text, image, audio, resource link,
 * embedded resource), the rich tool result that carries them, and the
 * structural checks that tell one apart from a plain return value. Core: no
 * MCP SDK types; the shapes are the protocol's own (2025-06-18 and later).
 */

/** A text block. */
export interface TextBlock {
  readonly type: "text";
  readonly text: string;
}

/** An image block; `data` is base64. */
export interface ImageBlock {
  readonly type: "image";
  readonly data: string;
  readonly mimeType: string;
}

/** An audio block; `data` is base64. */
export interface AudioBlock {
  readonly type: "audio";
  readonly data: string;
  readonly mimeType: string;
}

/** A link to a resource the client may read (`resources/read`). */
export interface ResourceLinkBlock {
  readonly type: "resource_link";
  readonly uri: string;
  readonly name: string;
  readonly description?: string;
  readonly mimeType?: string;
}

/** A resource's contents: text, or base64 `blob`. */
export type ResourceContents =
  | { readonly uri: string; readonly mimeType?: string; readonly text: string }
  | { readonly uri: string; readonly mimeType?: string; readonly blob: string };

/** A resource embedded in a result or a prompt message. */
export interface EmbeddedResourceBlock {
  readonly type: "resource";
  readonly resource: ResourceContents;
}

/** One MCP content block. Extra protocol fields (`annotations`, `_meta`) travel unchanged. */
export type ContentBlock = TextBlock | ImageBlock | AudioBlock | ResourceLinkBlock | EmbeddedResourceBlock;

/** A tool result in MCP's own shape: sent as it is by a served registry. */
export interface RichToolResult {
  readonly content: readonly ContentBlock[];
  /** Must match the tool's `outputSchema` when it declares one. */
  readonly structuredContent?: Readonly<Record<string, unknown>>;
  readonly isError?: boolean;
  readonly _meta?: Readonly<Record<string, unknown>>;
}

const str = (v: unknown): v is string => typeof v === "string";

/** True when `v` is a well-formed resource contents object (uri plus text or blob). */
export function isResourceContents(v: unknown): v is ResourceContents {
  if (!v || typeof v !== "object") return false;
  const r = v as Record<string, unknown>;
  return str(r.uri) && (str(r.text) || str(r.blob)) && (r.mimeType === undefined || str(r.mimeType));
}

/** True when `v` is one well-formed content block (the required fields of its `type` present, as strings). */
export function isContentBlock(v: unknown): v is ContentBlock {
  if (!v || typeof v !== "object") return false;
  const b = v as Record<string, unknown>;
  switch (b.type) {
    case "text":
      return str(b.text);
    case "image":
    case "audio":
      return str(b.data) && str(b.mimeType);
    case "resource_link":
      return str(b.uri) && str(b.name);
    case "resource":
      return isResourceContents(b.resource);
    default:
      return false;
  }
}

const RESULT_KEYS = new Set(["content", "structuredContent", "isError", "_meta"]);

/**
 * True when `v` is a `RichToolResult`: an object whose keys are only
 * `content`, `structuredContent`, `isError` and `_meta`, whose `content` is an
 * array of well-formed blocks. Strict on purpose: a plain return value that
 * merely has a `content` field keeps today's text behaviour.
 */
export function isRichToolResult(v: unknown): v is RichToolResult {
  if (!v || typeof v !== "object" || Array.isArray(v)) return false;
  const r = v as Record<string, unknown>;
  if (!Array.isArray(r.content) || !r.content.every(isContentBlock)) return false;
  for (const k of Object.keys(r)) if (!RESULT_KEYS.has(k)) return false;
  if (r.isError !== undefined && typeof r.isError !== "boolean") return false;
  return (
    r.structuredContent === undefined ||
    (typeof r.structuredContent === "object" && r.structuredContent !== null && !Array.isArray(r.structuredContent))
  );
}

/**
 * The content blocks of a rich return value, or `undefined` for a plain one:
 * a `RichToolResult`'s `content`, a non-empty array of blocks, or one block.
 */
export function contentBlocksOf(v: unknown): readonly ContentBlock[] | undefined {
  if (isRichToolResult(v)) return v.content;
  if (Array.isArray(v)) return v.length > 0 && v.every(isContentBlock) ? (v as ContentBlock[]) : undefined;
  return isContentBlock(v) ? [v] : undefined;
}

/** One block as the text a text-only reader sees (binary content as a short marker). */
export function blockText(b: ContentBlock): string {
  switch (b.type) {
    case "text":
      return b.text;
    case "image":
      return "[image content omitted]";
    case "audio":
      return "[audio content omitted]";
    case "resource_link":
      return `[resource: ${b.uri}]`;
    case "resource":
      return "text" in b.resource ? b.resource.text : `[resource ${b.resource.uri}: binary content omitted]`;
  }
}
