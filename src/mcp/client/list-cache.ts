/**
 * @module mcp/client/list-cache
 * An `MCPClient`'s lists on the SDK `Client`'s own machinery: its response
 * cache (SEP-2549: `responseCacheStore`, `cacheMode`, the server's `ttlMs`,
 * `list_changed` evictions), its change feed (`listChanged`, which on
 * 2026-07-28 opens the `subscriptions/listen` stream at connect), its page
 * walk (`listMaxPages`) and its output checks (against the cached
 * `tools/list`). What is left here is what the SDK 2.4 `Client` does
 * otherwise than this package promises:
 *
 * - the client's TTL (`MCPClientOptions.ttlMs`, 30 s) is the most a list is
 *   kept: the store caps each list's expiry (the SDK keeps a list without a
 *   server `ttlMs` not at all, and a server's `ttlMs` for as long as it says);
 * - concurrent callers share one walk (the SDK walks once per call), and a
 *   list served from the cache again is the same frozen items (the SDK
 *   parses each hit anew);
 * - a failed listing drops the cached list (the SDK keeps serving the old one
 *   while it is fresh);
 * - a dropped listen stream is opened again (the SDK never re-listens);
 * - a page that repeats its cursor is refused (see `refuseRepeatedCursor`);
 * - the count of changes `mcpResources()` reads (`listRevision`).
 */
import type { CacheMode, Client, ClientOptions, McpSubscription, ResponseCacheStore } from "@modelcontextprotocol/client";
import { getLogger } from "../../util/logger.js";
import type { ClientSdk } from "../peers/sdk-client.js";

/** The lists a server may say changed. */
export type ChangedList = "tools" | "resources" | "prompts";

/** The lists this cache keeps (prompts are listed with `cacheMode: "bypass"`: never cached). */
export type CachedList = "tools/list" | "resources/list";

const CACHED: ReadonlySet<string> = new Set<CachedList>(["tools/list", "resources/list"]);

/** More pages than this in one list is taken as a server bug (the SDK's `listMaxPages`, whose own default is 64). */
const MAX_PAGES = 10_000;

/** How often a dropped listen stream is opened again over a session's life before the client gives up (the TTL still bounds staleness). */
const MAX_RELISTENS = 3;

/** The wait before opening a dropped listen stream again, in ms. */
const RELISTEN_DELAY_MS = 250;

/** Each client's list cache, for `listRevision`. */
const byOwner = new WeakMap<object, ListCache>();

/**
 * How many times `owner`'s (an `MCPClient`'s) `list` was said to change or dropped with its session: a cache layered on
 * it (`mcpResources()`) drops its own when this moves.
 */
export function listRevision(owner: object, list: ChangedList): number {
  return byOwner.get(owner)?.revisions[list] ?? 0;
}

/** One client's lists, over every session it opens (see the module note). */
export class ListCache {
  private readonly store: ResponseCacheStore;
  private readonly inflight = new Map<CachedList, Promise<readonly unknown[]>>();
  /** Lists written to the store so far (a listing that wrote none was served from it). */
  private writes = 0;
  private readonly last = new Map<CachedList, { readonly json: string; readonly items: readonly unknown[] }>();
  /** Changes counted per list (see `listRevision`). */
  readonly revisions: Record<ChangedList, number> = { tools: 0, resources: 0, prompts: 0 };
  /** The session whose listen stream is followed; undefined once stopped. */
  private followed?: Client;
  private timer?: NodeJS.Timeout;
  /** The longest server `ttlMs` the SDK honours. */
  private readonly maxTtl: number;

  constructor(
    sdk: ClientSdk,
    /** The most a list is kept, in ms. */
    private readonly ttlMs: number,
  ) {
    this.maxTtl = sdk.MAX_CACHE_TTL_MS;
    const inner = new sdk.InMemoryResponseCacheStore();
    this.store = {
      get: (key) => inner.get(key),
      set: (key, entry) => {
        if (!CACHED.has(key.method) || entry.expiresAt === undefined) return inner.set(key, entry);
        this.writes++;
        return inner.set(key, { ...entry, expiresAt: this.expiry(entry.value, entry.expiresAt) });
      },
      delete: (key) => inner.delete(key),
      evict: (method) => inner.evict(method),
      clear: () => inner.clear(),
    };
  }

  /** Register `owner` (the `MCPClient`) for `listRevision`. */
  bind(owner: object): void {
    byOwner.set(owner, this);
  }

  /**
   * When a list (its JSON) expires: the SDK made `expiresAt` its clock's now
   * plus the server's `ttlMs` (at most `MAX_CACHE_TTL_MS`), or plus 0 without
   * one; it becomes now plus the client's TTL, or the server's when shorter.
   */
  private expiry(json: string, expiresAt: number): number {
    const sent = (JSON.parse(json) as { ttlMs?: unknown }).ttlMs;
    if (typeof sent !== "number") return expiresAt + this.ttlMs;
    const ttl = Math.max(0, sent);
    return expiresAt - Math.min(ttl, this.maxTtl) + Math.min(ttl, this.ttlMs);
  }

  /** The SDK `Client` options each session is made with: this store, the change handlers, the page cap. */
  sessionOptions(): Pick<ClientOptions, "responseCacheStore" | "listChanged" | "listMaxPages"> {
    const on = (list: ChangedList) => ({ autoRefresh: false, debounceMs: 0, onChanged: () => this.changed(list) });
    return {
      responseCacheStore: this.store,
      listMaxPages: MAX_PAGES,
      listChanged: { tools: on("tools"), resources: on("resources"), prompts: on("prompts") },
    };
  }

  /**
   * `list` through `load` (the SDK's listing, with the cache mode to use):
   * one walk shared by concurrent callers unless `refresh`. A failed walk
   * drops the cached list: the old one is never served as fresh after it.
   */
  get<T>(list: CachedList, load: (mode: CacheMode) => Promise<readonly T[]>, refresh = false): Promise<readonly T[]> {
    const shared = this.inflight.get(list);
    if (shared && !refresh) return shared as Promise<readonly T[]>;
    const writes = this.writes;
    const walk = load(refresh ? "refresh" : "use").then(
      (items) => this.same(list, items, this.writes === writes),
      async (err: unknown) => {
        await this.store.evict(list);
        throw err;
      },
    );
    this.inflight.set(list, walk);
    const done = (): void => void (this.inflight.get(list) === walk && this.inflight.delete(list));
    walk.then(done, done);
    return walk;
  }

  /**
   * `items`, or, for a list served from the cache (`hit`: nothing was written), the equal one handed out last: the SDK
   * parses each hit anew.
   */
  private same<T>(list: CachedList, items: readonly T[], hit: boolean): readonly T[] {
    const json = JSON.stringify(items);
    const last = this.last.get(list);
    if (hit && last?.json === json) return last.items as readonly T[];
    this.last.set(list, { json, items });
    return items;
  }

  /** The server said `list` changed (the SDK has evicted it already): count it, and a walk in flight is not shared any more. */
  private changed(list: ChangedList): void {
    this.revisions[list]++;
    if (list !== "prompts") this.inflight.delete(`${list}/list`);
  }

  /** Drop every list (the session was replaced, or its listen stream dropped: what changed meanwhile is unknown). */
  clear(): void {
    void this.store.clear();
    this.inflight.clear();
    for (const list of Object.keys(this.revisions) as ChangedList[]) this.revisions[list]++;
  }

  /**
   * Follow `session`'s listen stream (the one the SDK opened at connect):
   * when the server drops it, drop the lists and open it again after a short
   * wait, at most `MAX_RELISTENS` times (the SDK 2.4 never re-listens).
   */
  follow(session: Client, timeout: number | undefined): void {
    this.stop();
    this.followed = session;
    const watch = (sub: McpSubscription | undefined, relistens: number): void =>
      void sub?.closed.then((how) => {
        if (how === "local" || this.followed !== session) return;
        this.clear();
        if (relistens >= MAX_RELISTENS)
          return getLogger().debug(`MCPClient: the listen stream ended ${relistens + 1} times; lists fall back to their TTL`);
        this.timer = setTimeout(() => {
          if (this.followed !== session) return;
          session.listen(sub.honoredFilter, timeout !== undefined ? { timeout } : {}).then(
            (next) => (this.followed === session ? watch(next, relistens + 1) : void next.close()),
            (err: unknown) =>
              getLogger().debug(
                `MCPClient: subscriptions/listen failed (${err instanceof Error ? err.message : String(err)}); ` +
                  `lists fall back to their TTL`,
              ),
          );
        }, RELISTEN_DELAY_MS);
      });
    watch(session.autoOpenedSubscription, 0);
  }

  /** Stop following (the client closes, or a new session is followed). */
  stop(): void {
    this.followed = undefined;
    clearTimeout(this.timer);
  }
}

/**
 * Refuse a list page whose `nextCursor` is the cursor it was asked with. The
 * SDK 2.4 walk ends quietly at such a page when it repeats the previous one,
 * and returns a list that looks complete (typescript-sdk#2735; its fix,
 * #2741, would follow the cursor up to `listMaxPages` instead).
 * `test/mcp-client/pagination.test.ts` shows the SDK's walk doing it; drop
 * this wrapper of `session.request` when that test fails.
 */
export function refuseRepeatedCursor(session: Client): void {
  const request = session.request.bind(session) as (...args: unknown[]) => Promise<unknown>;
  session.request = (async (...args: unknown[]) => {
    const page = await request(...args);
    const cursor = (args[0] as { params?: { cursor?: unknown } }).params?.cursor;
    if (cursor !== undefined && (page as { nextCursor?: unknown } | undefined)?.nextCursor === cursor)
      throw new Error(`the server repeated cursor ${JSON.stringify(cursor)}`);
    return page;
  }) as Client["request"];
}
