/**
 * @module mcp/client/change-feed
 * A server's "your lists changed" news, in both protocol eras, turned into
 * one callback. On 2025 the server sends `notifications/{tools,resources,
 * prompts}/list_changed` unsolicited; on 2026-07-28 it sends them only on a
 * `subscriptions/listen` stream the client opened, so the feed keeps one
 * open (for the lists the server says change) while the session lives, and
 * opens it again when the server drops it.
 */
import type { Client, McpSubscription, SubscriptionFilter } from "@modelcontextprotocol/client";
import { getLogger, ignoreRejection } from "../../util/logger.js";

/** The lists a server may say changed. */
export type ChangedList = "tools" | "resources" | "prompts";

const NOTIFICATIONS = {
  tools: "notifications/tools/list_changed",
  resources: "notifications/resources/list_changed",
  prompts: "notifications/prompts/list_changed",
} as const satisfies Record<ChangedList, string>;

/** Per client: how many times each of its lists was said to change (or dropped with its session). */
const revisions = new WeakMap<object, Record<ChangedList, number>>();

/** Count a change of `list` on `owner` (an `MCPClient`): the caches layered on it (e.g. `mcpResources()`) drop theirs on their next read. */
export function noteListChanged(owner: object, list: ChangedList): void {
  const r = revisions.get(owner) ?? { tools: 0, resources: 0, prompts: 0 };
  r[list]++;
  revisions.set(owner, r);
}

/** How many changes of `list` were counted on `owner` so far (0 before any). */
export function listRevision(owner: object, list: ChangedList): number {
  return revisions.get(owner)?.[list] ?? 0;
}

/** How often a dropped listen stream is opened again over a session's life before the feed gives up (the TTL still bounds staleness). */
const MAX_RELISTENS = 3;

/** The wait before opening a dropped listen stream again, in ms. */
const RELISTEN_DELAY_MS = 250;

/**
 * The change feed of one session. `changed(list)` runs for every
 * list_changed the server sends, whichever era carried it.
 */
export class ChangeFeed {
  private subscription?: Promise<McpSubscription | undefined>;
  private stopped = false;
  private relistens = 0;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly session: Client,
    private readonly server: string,
    private readonly changed: (list: ChangedList) => void,
    private readonly timeout?: number,
  ) {
    for (const list of Object.keys(NOTIFICATIONS) as ChangedList[]) {
      session.setNotificationHandler(NOTIFICATIONS[list], () => this.changed(list));
    }
    if (session.getProtocolEra() === "modern") this.listen();
  }

  /**
   * The open listen stream (2026-07-28), once the server acknowledged it;
   * undefined on 2025, for a server that announces no changing list, or
   * when opening it failed.
   */
  get listening(): Promise<McpSubscription | undefined> {
    return this.subscription ?? Promise.resolve(undefined);
  }

  /** What to listen for: the lists whose `listChanged` the server declared. */
  private filter(): SubscriptionFilter | undefined {
    const caps = this.session.getServerCapabilities();
    const filter: SubscriptionFilter = {
      ...(caps?.tools?.listChanged ? { toolsListChanged: true } : {}),
      ...(caps?.resources?.listChanged ? { resourcesListChanged: true } : {}),
      ...(caps?.prompts?.listChanged ? { promptsListChanged: true } : {}),
    };
    return Object.keys(filter).length ? filter : undefined;
  }

  /** Open the listen stream in the background (open() does not wait for it); a dropped one is opened again. */
  private listen(): void {
    const filter = this.filter();
    if (!filter || this.stopped) return;
    this.subscription = this.session.listen(filter, this.timeout !== undefined ? { timeout: this.timeout } : {}).then(
      (sub) => {
        if (this.stopped) {
          void sub.close();
          return undefined;
        }
        void sub.closed.then((how) => this.dropped(how));
        return sub;
      },
      (err: unknown) => {
        getLogger().debug(`MCPClient ${this.server}: subscriptions/listen failed (${err instanceof Error ? err.message : String(err)}); lists fall back to their TTL`);
        return undefined;
      },
    );
  }

  private dropped(how: "local" | "graceful" | "remote"): void {
    if (this.stopped || how === "local") return;
    if (++this.relistens > MAX_RELISTENS) {
      getLogger().debug(`MCPClient ${this.server}: the listen stream ended ${MAX_RELISTENS + 1} times; lists fall back to their TTL`);
      return;
    }
    // Whatever changed while no stream was open is unknown: drop the lists too.
    for (const list of Object.keys(NOTIFICATIONS) as ChangedList[]) this.changed(list);
    this.timer = setTimeout(() => this.listen(), RELISTEN_DELAY_MS);
  }

  /** Close the listen stream (if any) and stop opening it again. Idempotent. */
  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const sub = await this.subscription?.catch(() => undefined);
    await sub?.close().catch(ignoreRejection("closing a change subscription while closing"));
  }
}
