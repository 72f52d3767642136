/**
 * @module mcp/client/mcp-resources
 * `mcpResources()`: a server's resources as a queryable `MemorySource`.
 */
import type { Resource } from "@modelcontextprotocol/client";
import type { RunContext } from "../../context/run-context.js";
import { NotImplementedError } from "../../errors/not-implemented.error.js";
import { checkK, memoryItem, type MemoryItem, type MemorySource, type QueryOptions } from "../../memory/memory.js";
import { DEFAULT_TTL_MS, type MCPClient } from "./mcp-client.js";
import { listRevision } from "./list-cache.js";
import { serverDeclares } from "./server-capabilities.js";
import { TtlCache } from "./ttl-cache.js";
import { checkOptions, opt } from "../../options/option-checks.js";

/** Options of `mcpResources()`. */
export interface McpResourcesOptions {
  /** The source's name. Default `"mcp_resources"`. */
  readonly name?: string;
  /** TTL of this source's own resource-list cache, in ms. Default `DEFAULT_TTL_MS` (30 000). */
  readonly ttlMs?: number;
}

/** The options of `mcpResources()`, declared once. */
const MCP_RESOURCES_OPTIONS = { name: opt.string("a non-empty name", true), ttlMs: opt.nonNegativeMs(DEFAULT_TTL_MS) } as const;

/**
 * MCP resources as a read-only `MemorySource`. `query(text, { k })` lists the
 * resources (through its own cache), keeps those whose name, description or
 * URI contains `text` (case-insensitive), ranks them by how many of those
 * three fields match — ties in first-seen order — and reads the top `k`. Each
 * `MemoryItem` has the resource's text as `content` and `metadata`
 * `{ uri, name, mimeType }`. A server that declares no `resources` capability
 * is not asked: every query returns `[]` (one debug line, on the first).
 *
 * The list cache is separate from the client's: `client.listResources({
 * forceRefresh: true })` does not reach through it. It is dropped, like the
 * client's, when the server says its resources changed (`list_changed`, in
 * either protocol era) or the client's session is replaced. The ranking is
 * deliberately coarse; for vector-quality ranking wrap this in `CachedMemory` /
 * `CompactedMemory` or put it in a `CompositeMemory` next to a `VectorMemory`.
 * Built by `mcpResources()` only: `arc-agentkit/mcp` exports the class as a type.
 */
export class McpResourceMemory implements MemorySource {
  readonly name: string;
  private readonly list: TtlCache<readonly Resource[]>;
  /** Whether the server declared resources (checked on the first query). */
  private declared?: boolean;
  /** The client's count of resource-list changes when this cache was last checked. */
  private revision = 0;

  /**
   * @throws OptionsError for an unknown option, a missing required one or a
   *   value of the wrong kind (or `null` options), naming what is accepted.
   */
  constructor(
    private readonly client: MCPClient,
    options: McpResourcesOptions = {},
  ) {
    const o = checkOptions(options, "mcpResources", MCP_RESOURCES_OPTIONS);
    this.name = o.name ?? "mcp_resources";
    this.list = new TtlCache(o.ttlMs);
  }

  /**
   * The top-`k` resources matching `text` (k defaults to 5), read now.
   *
   * @throws Cancelled when `ctx` is cancelled; McpRequestError when listing or a read fails;
   *   AgentkitError (code `mcp_not_entered`) when the client is closed.
   */
  async query(text: string, options: QueryOptions = {}): Promise<MemoryItem[]> {
    const k = checkK(options.k, `mcpResources '${this.name}'.query`);
    options.ctx?.checkCancelled();
    void this.client.session; // a closed client is an error even when the list is cached
    this.declared ??= serverDeclares(this.client, "resources", `mcpResources '${this.name}'.query`);
    if (!this.declared) return [];
    const revision = listRevision(this.client, "resources");
    if (revision !== this.revision) {
      this.list.clear(); // the server said its resources changed (or the session was replaced)
      this.revision = revision;
    }
    const resources = await this.list.get(() => this.client.listResources());
    const needle = String(text).toLowerCase();
    const seen = new Set<string>();
    const ranked: { r: Resource; score: number; order: number }[] = [];
    resources.forEach((r, order) => {
      if (seen.has(r.uri)) return;
      seen.add(r.uri);
      const score = [r.name, r.description, r.uri].filter((f) => typeof f === "string" && f.toLowerCase().includes(needle)).length;
      if (score > 0) ranked.push({ r, score, order });
    });
    ranked.sort((a, b) => b.score - a.score || a.order - b.order);
    const top = ranked.slice(0, k);
    options.ctx?.checkCancelled();
    const texts = await Promise.all(top.map(({ r }) => this.client.readResource(r.uri)));
    return top.map(({ r, score }, i) => memoryItem(texts[i]!, { uri: r.uri, name: r.name, mimeType: r.mimeType ?? null }, score));
  }

  /** @throws NotImplementedError always: MCP resources are server-authored; a client-side write would be a protocol violation. */
  async write(_item: MemoryItem, _ctx?: RunContext): Promise<void> {
    throw new NotImplementedError(
      `mcpResources '${this.name}': write is not supported — MCP resources are server-authored, and a client-side ` +
        `write path would be a protocol violation`,
      "write",
    );
  }
}

/**
 * A `MemorySource` over `client`'s resources (see `McpResourceMemory`).
 *
 * @throws OptionsError naming a bad or unknown option and what is accepted.
 */
export function mcpResources(client: MCPClient, options: McpResourcesOptions = {}): McpResourceMemory {
  return new McpResourceMemory(client, options);
}
