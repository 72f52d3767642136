/**
 * @module mcp/serve/served-results
 * Served results within a budget. A result whose text blocks (the note
 * included; each image or audio block as the 1,600 tokens Claude Code counts
 * it, four characters a token) come to more than the tool's budget is
 * answered with a preview (whole JSON / NDJSON values: `result-pages`), a
 * note saying how to read the rest, and a `resource_link` to
 * `agentkit://results/<id>`; the whole is kept in the module's
 * `ResultStore`, bound to the caller (the binding a task has:
 * `recordOwner`), until it expires. The module's `read_result` tool pages it
 * for clients that read no resources. `structuredContent` is never cut.
 *
 * Claude Code saves a text result over 50,000 characters to a file unless
 * the tool's `tools/list` entry declares `_meta["anthropic/maxResultSizeChars"]`
 * (at most 500,000): a tool whose budget is over 50,000 declares it, and a
 * budget is never more than 500,000, so an answer is always shown whole.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { RunContext } from "../../context/run-context.js";
import type { ResultStore, SpilledResult } from "../../contracts/result-store.js";
import { OptionsError } from "../../errors/options.error.js";
import { MemoryResultStore } from "../../records/memory-result-store.js";
import { newRecordId } from "../../records/memory-call-records.js";
import { tool } from "../../tools/function-tool.js";
import type { ServableResource } from "../../tools/served-items.js";
import { isResultBudget, RESULT_BUDGET } from "../../tools/tool-options.js";
import type { Tool } from "../../tools/tool.js";
import { describeValue } from "../../util/format.js";
import { PayloadLayout, type PayloadShape } from "./result-pages.js";
import { recordOwner } from "./round-records.js";

/**
 * The module / serve option `results`. Budgets are on by default: left unset,
 * every tool's budget is 20,000 characters and the module serves its
 * `read_result` tool (listed in `tools/list`) and its
 * `agentkit://results/{id}` resource. `results: false` turns the module-wide
 * budget off: a result goes out whole, and only a tool that declares its own
 * `maxResultChars` is budgeted (then `read_result` is still served, for it).
 */
export interface ResultsOptions {
  /** A tool's budget unless it declares `maxResultChars` (a positive integer). Default 20,000. */
  readonly maxChars?: number;
  /** Where spilled results are kept; default an in-process `MemoryResultStore` (an hour, 1,000 results). A fleet shares one. */
  readonly store?: ResultStore;
}

/** The default budget of a served result, in characters. */
export const DEFAULT_RESULT_CHARS = 20_000;
/** What Claude Code counts an image (or audio) block as: 1,600 tokens, at its four characters a token. */
export const MEDIA_BLOCK_CHARS = 1_600 * 4;
/** Claude Code saves a longer text result to a file, unless the tool declares `anthropic/maxResultSizeChars`. */
export const CLAUDE_INLINE_CHARS = 50_000;
/** The most `anthropic/maxResultSizeChars` Claude Code honours. */
export const CLAUDE_MAX_RESULT_CHARS = 500_000;
/** The most characters `read_result` answers in one page. */
export const PAGE_CHARS = 20_000;
/** The URI prefix of spilled results. */
export const RESULTS_URI = "agentkit://results/";
/** The module's tool that pages a spilled result. */
export const READ_RESULT = "read_result";

const MIME: Record<PayloadShape, string> = { json: "application/json", ndjson: "application/x-ndjson", text: "text/plain" };
const SHAPE_WORDS: Record<PayloadShape, string> = { json: "JSON", ndjson: "NDJSON", text: "text" };

/** `_meta["anthropic/maxResultSizeChars"]` for a budget: `min(budget, 500,000)` when it is over 50,000, else none. */
export function resultSizeHint(budget: number | undefined): number | undefined {
  return budget !== undefined && budget > CLAUDE_INLINE_CHARS ? Math.min(budget, CLAUDE_MAX_RESULT_CHARS) : undefined;
}

/**
 * The module-wide budget a `results` option gives: its `maxChars`, else the
 * default 20,000 (unset: budgets are on by default); none for `false`.
 */
export function moduleBudget(option: ResultsOptions | false | undefined): number | undefined {
  return option === false ? undefined : (option?.maxChars ?? DEFAULT_RESULT_CHARS);
}

/**
 * Check a `results` option (`where` names the entry point): unset, `false`
 * or `{ maxChars?, store? }`; throws `OptionsError` naming the field and what
 * is accepted.
 */
export function checkResultsOption(v: unknown, where: string): ResultsOptions | false | undefined {
  if (v === undefined || v === false) return v;
  const bad = (option: string, accepted: string, got: unknown): never => {
    throw new OptionsError(where, option, `${where}: ${option} must be ${accepted}, got ${describeValue(got)}`);
  };
  if (v === null || typeof v !== "object" || Array.isArray(v))
    return bad("results", "an object { maxChars?, store? }, or false (no module-wide budget)", v);
  const o = v as Record<string, unknown>;
  const unknown = Object.keys(o).find((k) => k !== "maxChars" && k !== "store");
  if (unknown) bad(`results.${unknown}`, "one of maxChars, store (an unknown option)", o[unknown]);
  if (o.maxChars !== undefined && !isResultBudget(o.maxChars)) bad("results.maxChars", RESULT_BUDGET, o.maxChars);
  const store = o.store as Partial<ResultStore> | undefined;
  if (
    store !== undefined &&
    (store === null ||
      typeof store !== "object" ||
      typeof store.putResult !== "function" ||
      typeof store.getResult !== "function" ||
      !isResultBudget(store.ttlMs))
  ) {
    bad("results.store", "a result store ({ ttlMs, putResult, getResult }: MemoryResultStore or your own ResultStore)", store);
  }
  return Object.freeze({ ...o }) as ResultsOptions;
}

type Block = CallToolResult["content"][number];

/** The characters a block counts for (see the module note). */
function blockChars(b: Block): number {
  switch (b.type) {
    case "text":
      return b.text.length;
    case "image":
    case "audio":
      return MEDIA_BLOCK_CHARS;
    case "resource_link":
      return b.uri.length + b.name.length + (b.description?.length ?? 0) + 24;
    case "resource":
      return "text" in b.resource ? b.resource.text.length : MEDIA_BLOCK_CHARS;
    default:
      return 0;
  }
}

/** How many characters a result's content counts for (text blocks, media as Claude counts them). */
export function resultChars(result: CallToolResult): number {
  let n = 0;
  for (const b of result.content ?? []) n += blockChars(b);
  return n;
}

const fmt = (n: number): string => n.toLocaleString("en-US");

/** A module's results: the default budget, the store, and the spill of one result. */
export class ServedResults {
  /** The module-wide budget (`undefined` for `results: false`: only a tool declaring `maxResultChars` is budgeted). */
  readonly moduleChars: number | undefined;
  /** The basis of the page size: the module-wide budget, else the default 20,000. */
  readonly maxChars: number;
  readonly store: ResultStore;
  /** The module's `read_result` tool (one per module, so a served call knows it by identity). */
  readonly reader: Tool;
  /** The template of the results resource. */
  readonly resourceTemplate = `${RESULTS_URI}{id}`;

  constructor(
    /** The served module's name. */
    readonly server: string,
    options: ResultsOptions | false = {},
  ) {
    this.moduleChars = moduleBudget(options);
    this.maxChars = this.moduleChars ?? DEFAULT_RESULT_CHARS;
    this.store = (options !== false && options.store) || new MemoryResultStore();
    this.reader = this.readerTool();
  }

  /**
   * A tool's budget: its own `maxResultChars`, else the module's (`Infinity`
   * with none: `results: false`); never over what Claude Code shows whole.
   */
  budgetOf(t: Tool): number {
    const budget = t.maxResultChars ?? this.moduleChars;
    return budget === undefined ? Infinity : Math.min(budget, CLAUDE_MAX_RESULT_CHARS);
  }

  /**
   * The longest page `read_result` answers: the module's budget, at most
   * 20,000 (Claude Code shows a result's `structuredContent` instead of its
   * text, so the page travels there too, JSON-escaped, and must stay under
   * the 50,000 it shows without saving to a file).
   */
  get pageChars(): number {
    return Math.min(this.maxChars, PAGE_CHARS);
  }

  /** True when `result` is over `budget` (the check on every call: one pass over the blocks). */
  over(result: CallToolResult, budget: number): boolean {
    return resultChars(result) > budget;
  }

  /**
   * `result` (over `budget`) as a preview, a note and a link; the whole kept
   * for `owner`. Rejects with the store's error.
   */
  async spill(result: CallToolResult, budget: number, owner: string, toolName: string): Promise<CallToolResult> {
    const texts: string[] = [];
    const others: Block[] = [];
    for (const b of result.content ?? []) {
      if (b.type === "text") texts.push(b.text);
      else others.push(b);
    }
    const layout = new PayloadLayout(texts.join("\n"));
    const id = newRecordId();
    const uri = `${RESULTS_URI}${id}`;
    const now = Date.now();
    const link = {
      type: "resource_link" as const,
      uri,
      name: `${toolName} result`,
      mimeType: MIME[layout.shape],
      description: `the whole result (${fmt(layout.total)} characters)`,
    };
    // Media blocks kept while they fit beside the link; those left out are served with the resource.
    let room = budget - blockChars(link);
    const kept: Block[] = [];
    for (const b of others) {
      const n = blockChars(b);
      if (n <= room - 600) {
        kept.push(b);
        room -= n;
      }
    }
    const left = others.length - kept.length;
    const note = (shown: number, next: number): string =>
      this.note({ toolName, id, uri, total: layout.total, shape: layout.shape, budget, shown, next, left, ttlMs: this.store.ttlMs });
    const preview = layout.preview(room - note(layout.total, layout.total).length);
    await this.store.putResult({
      id,
      owner,
      server: this.server,
      tool: toolName,
      text: layout.text,
      mimeType: MIME[layout.shape],
      blocks: others as unknown as SpilledResult["blocks"],
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.store.ttlMs).toISOString(),
    });
    const content: Block[] = [];
    if (preview.text !== "") content.push({ type: "text", text: preview.text });
    content.push({ type: "text", text: note(preview.text.length, preview.next) }, ...kept, link);
    return { ...result, content };
  }

  /** The note beside a preview: how big the whole is, what is shown, and how to read the rest. */
  private note(n: {
    toolName: string;
    id: string;
    uri: string;
    total: number;
    shape: PayloadShape;
    budget: number;
    shown: number;
    next: number;
    left: number;
    ttlMs: number;
  }): string {
    const what = n.shape === "text" ? "characters" : `characters, whole ${n.shape === "json" ? "JSON values" : "NDJSON lines"}`;
    const media = n.left ? ` ${n.left} image/audio/resource block(s) did not fit; the resource has them.` : "";
    return (
      `[Result of '${n.toolName}': ${fmt(n.total)} characters of ${SHAPE_WORDS[n.shape]}, over its ${fmt(n.budget)}-character budget. ` +
      `${n.shown ? `Above: its first ${fmt(n.shown)} ${what}.` : "Nothing of it fits here."} ` +
      `Read on with ${READ_RESULT} {"id":"${n.id}","offset":${n.next}} (pages of up to ${fmt(this.pageChars)} ` +
      `characters; the pages joined are the result exactly), or read the resource ${n.uri}. ` +
      `Kept for ${fmt(Math.round(n.ttlMs / 60_000))} minutes, for this caller only.${media}]`
    );
  }

  /** The caller's spilled result `id`, or an error naming it (unknown, expired and another caller's read alike). */
  async find(id: string, ctx: RunContext, what: string): Promise<SpilledResult> {
    const r = await this.store.getResult(id, recordOwner(this.server, ctx.caller));
    if (!r)
      throw new Error(
        `${what}: no result '${id}' (unknown, expired — results are kept ` +
          `${fmt(Math.round(this.store.ttlMs / 60_000))} minutes — or not this caller's); call the tool again for a ` +
          `fresh one`,
      );
    return r;
  }

  /** The module's `read_result` tool (see the module note). */
  private readerTool(): Tool {
    const input = {
      type: "object",
      properties: {
        id: { type: "string", minLength: 1, description: "The id in the result's note (the <id> of agentkit://results/<id>)" },
        offset: { type: "integer", minimum: 0, description: "The first character to read (default 0)" },
        length: { type: "integer", minimum: 1, description: `The most characters to read (default and at most ${this.pageChars})` },
      },
      required: ["id"],
      additionalProperties: false,
    };
    const outputSchema = {
      type: "object",
      properties: {
        offset: { type: "integer" },
        nextOffset: { type: ["integer", "null"] },
        total: { type: "integer" },
        text: { type: "string", description: "The page (the first text block's characters)" },
      },
      required: ["offset", "nextOffset", "total", "text"],
    };
    return tool(
      {
        name: READ_RESULT,
        description:
          `Read a tool result that was too long to show whole, by the id in its note: the characters [offset, offset ` +
          `+ length), cut after a whole JSON value or NDJSON line when it can. The first text block (and ` +
          `structuredContent.text) is exactly those characters; structuredContent.nextOffset is where the next page ` +
          `starts (null at the end).`,
        input,
        outputSchema,
        sideEffecting: false,
        task: "never",
        alwaysLoad: true,
        searchHint: "read the rest of a long tool result, page by page",
      },
      async ({ id, offset, length }: { id: string; offset?: number; length?: number }, ctx: RunContext) => {
        const r = await this.find(id, ctx, READ_RESULT);
        const page = new PayloadLayout(r.text).page(offset ?? 0, Math.min(length ?? this.pageChars, this.pageChars));
        const end = page.offset + page.text.length;
        const more = page.nextOffset === null ? "the end of the result" : `next: ${READ_RESULT} {"id":"${id}","offset":${page.nextOffset}}`;
        return {
          content: [
            { type: "text", text: page.text },
            { type: "text", text: `[characters ${fmt(page.offset)}–${fmt(end)} of ${fmt(page.total)}; ${more}]` },
          ],
          // The page in structuredContent too: Claude Code shows a result's structuredContent to the model instead of its text blocks.
          structuredContent: { offset: page.offset, nextOffset: page.nextOffset, total: page.total, text: page.text },
        };
      },
    );
  }

  /** The `agentkit://results/{id}` resource: the caller's whole result (text, then its other blocks' contents). */
  resource(): ServableResource {
    return {
      uriTemplate: this.resourceTemplate,
      name: "results",
      description: "A tool result too long to show whole (the link in its answer); readable by the caller that got it until it expires",
      read: async ({ id }, ctx) => {
        const r = await this.find(id ?? "", ctx, `resource ${RESULTS_URI}${id}`);
        const uri = `${RESULTS_URI}${r.id}`;
        const contents = [{ uri, mimeType: r.mimeType, text: r.text }];
        for (const b of r.blocks as readonly Record<string, unknown>[]) {
          if ((b.type === "image" || b.type === "audio") && typeof b.data === "string")
            contents.push({ uri, mimeType: String(b.mimeType), blob: b.data } as never);
          else if (b.type === "resource" && b.resource && typeof b.resource === "object") contents.push(b.resource as never);
        }
        return contents;
      },
    };
  }
}
