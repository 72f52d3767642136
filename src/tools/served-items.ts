/**
 * @module tools/served-items
 * The structural contracts of what a served registry offers besides tools: a
 * resource (`read`, optional `list` and `complete`) and a prompt (`render`,
 * optional `complete`), with the values those methods may return. `@Resource`
 * and `@Prompt` classes are turned into these when served; a plain object of
 * the same shape is accepted as it is.
 */
import type { RunContext } from "../context/run-context.js";
import type { ContentBlock, ResourceContents } from "./mcp-content.js";
import type { CacheHint, PromptArgument } from "./served-options.js";

/**
 * What `read()` may return: a string (text, with the resource's `mimeType`,
 * default `text/plain`), bytes (a base64 `blob`), `{ text }` / `{ blob }`
 * (with an optional `mimeType`; `uri` defaults to the URI read), or whole
 * `ResourceContents` (one or several).
 */
export type ResourceRead =
  | string
  | Uint8Array
  | { readonly text: string; readonly mimeType?: string; readonly uri?: string }
  | { readonly blob: string; readonly mimeType?: string; readonly uri?: string }
  | readonly ResourceContents[];

/** One entry `list()` adds to `resources/list` (a templated resource's concrete members). */
export interface ResourceListEntry {
  readonly uri: string;
  readonly name?: string;
  readonly description?: string;
  readonly mimeType?: string;
}

/** A served resource: a fixed `uri` or a `uriTemplate`, read with the template's variables. */
export interface ServableResource {
  readonly uri?: string;
  readonly uriTemplate?: string;
  readonly name: string;
  readonly description?: string;
  readonly mimeType?: string;
  /**
   * MCP 2026-07-28: how long a client may keep this resource's `resources/read`
   * result (`ttlMs`, a non-negative integer) and whether shared caches may
   * (`cacheScope`). Default `{ ttlMs: 0, cacheScope: "private" }`: read again
   * every time. 2025-era reads carry no hint.
   */
  readonly cacheHint?: CacheHint;
  /** The OAuth scopes a hosted caller's token must all carry to see, read, complete or subscribe to it (see `ResourceOptions.scopes`). */
  readonly scopes?: readonly string[];
  /**
   * `params` holds the template's variables (`{}` for a fixed `uri`); `ctx` is the request's context. Throwing is a
   * JSON-RPC error carrying the message.
   */
  read(params: Record<string, string>, ctx: RunContext): ResourceRead | Promise<ResourceRead>;
  /** Concrete members of a template, listed by `resources/list`. */
  list?(ctx: RunContext): readonly ResourceListEntry[] | Promise<readonly ResourceListEntry[]>;
  /** Values for a template variable that start like `value` (`completion/complete`). */
  complete?(argument: string, value: string, ctx: RunContext): readonly string[] | Promise<readonly string[]>;
}

/** One message of a rendered prompt. */
export interface PromptMessage {
  readonly role: "user" | "assistant";
  readonly content: ContentBlock;
}

/** What `render()` may return: text (one user message), messages, or both with a description. */
export type PromptRender =
  string | readonly PromptMessage[] | { readonly messages: readonly PromptMessage[]; readonly description?: string };

/** A served prompt. */
export interface ServablePrompt {
  readonly name: string;
  readonly description?: string;
  readonly arguments?: readonly PromptArgument[];
  /** The OAuth scopes a hosted caller's token must all carry to see, get or complete it (see `PromptOptions.scopes`). */
  readonly scopes?: readonly string[];
  /** `args` holds only declared arguments (required ones present); throwing is a JSON-RPC error carrying the message. */
  render(args: Record<string, string>, ctx: RunContext): PromptRender | Promise<PromptRender>;
  /** Values for an argument that start like `value` (`completion/complete`). */
  complete?(argument: string, value: string, ctx: RunContext): readonly string[] | Promise<readonly string[]>;
}
