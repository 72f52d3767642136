/**
 * @module test/mcp-serve/changes-both-eras.test
 * What a running spec announces reaches clients of both protocol eras, SDK v2
 * clients over the real loopback endpoint: on 2026-07-28 through a
 * `subscriptions/listen` stream (list_changed for tools, resources, prompts;
 * `resources/updated` for the URIs it asked for), on 2025 through the
 * session (`resources/updated` only to a session that subscribed); and the
 * package's own `MCPClient` sees a tool the spec adds on its next listing.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { Client, type McpSubscription } from "@modelcontextprotocol/client";
import { v2Client } from "../helpers/v2-client.js";
import { until, untilValue } from "../helpers/wait.js";
import { tool } from "../../src/index.js";
import type { CacheHint } from "../../src/mcp/serve/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { DefinitionError, OptionsError } from "../../src/index.js";
import { MCPClient, Resource, serveRegistry, StreamableHttpServer, type McpServerSpec } from "../../src/mcp/index.js";

/** A `@Resource` class declaring its own cache hint. */
@Resource({ uri: "a://decorated", cacheHint: { ttlMs: 7000 } })
class Decorated {
  read() {
    return "d";
  }
}

const specs: McpServerSpec[] = [];
afterEach(async () => {
  vi.unstubAllGlobals();
  for (const s of specs.splice(0)) await s.stop();
});

const named = (name: string) => tool({ name, description: `The ${name} tool.`, sideEffecting: false }, () => `${name}!`);

async function growingSpec(cacheHint?: CacheHint): Promise<McpServerSpec> {
  const spec = await serveRegistry([named("first")], {
    name: "news",
    ctx: makeTestCtx(),
    // results: false: these tests follow list changes of the module's own tools, without the read_result budgets add.
    results: false,
    ...(cacheHint ? { cacheHint } : {}),
    resources: [
      { uri: "a://watched", name: "watched", read: () => "w", cacheHint: { ttlMs: 5000, cacheScope: "public" } },
      { uri: "a://other", name: "other", read: () => "o" },
      Decorated,
    ],
    prompts: [{ name: "p1", render: () => "one" }],
  });
  specs.push(spec);
  await spec.start();
  return spec;
}

/** An SDK v2 client of `spec` in `era`; `streamOpen` resolves once a 2025 session's standalone GET stream is answered (2026: at once). */
async function sdkClient(
  spec: McpServerSpec,
  era: "2026-07-28" | "2025-11-25",
): Promise<{ client: Client & AsyncDisposable; streamOpen: Promise<void> }> {
  let opened!: () => void;
  const streamOpen = new Promise<void>((r) => (opened = r));
  const client = await v2Client(spec.url!, {
    headers: spec.authHeaders,
    version: era === "2026-07-28" ? era : "legacy",
    fetch: async (u, init) => {
      const res = await fetch(u, init);
      if ((init?.method ?? "GET") === "GET" && res.ok) opened();
      return res;
    },
  });
  expect(client.getNegotiatedProtocolVersion()).toBe(era);
  if (era === "2026-07-28") opened();
  return { client, streamOpen };
}

/** Every notification `client` receives, by method (`params.uri` for resources/updated). */
function recorder(client: Client): string[] {
  const seen: string[] = [];
  for (const method of [
    "notifications/tools/list_changed",
    "notifications/resources/list_changed",
    "notifications/prompts/list_changed",
    "notifications/resources/updated",
  ] as const) {
    client.setNotificationHandler(method, (n) => {
      const uri = (n.params as { uri?: string } | undefined)?.uri;
      seen.push(uri ? `${method} ${uri}` : method);
    });
  }
  return seen;
}

/** Resolves once `seen` holds `entry`; fails naming it and what was seen instead. */
const heard = (seen: string[], entry: string): Promise<void> =>
  until(
    () => seen.includes(entry),
    () => `${entry} (heard: ${JSON.stringify(seen)})`,
  );

describe("2026-07-28: subscriptions/listen served", () => {
  it("list_changed for tools, resources and prompts, and resources/updated only for the URIs the stream asked for", async () => {
    const spec = await growingSpec();
    const { client } = await sdkClient(spec, "2026-07-28");
    await using c = client;
    const seen = recorder(c);
    const sub: McpSubscription = await c.listen({
      toolsListChanged: true,
      resourcesListChanged: true,
      promptsListChanged: true,
      resourceSubscriptions: ["a://watched"],
    });
    expect(sub.honoredFilter).toMatchObject({
      toolsListChanged: true,
      resourcesListChanged: true,
      promptsListChanged: true,
      resourceSubscriptions: ["a://watched"],
    });

    spec.addTool(named("second"));
    await heard(seen, "notifications/tools/list_changed");
    expect((await c.listTools()).tools.map((t) => t.name)).toEqual(["first", "second"]);
    spec.addResource({ uri: "a://third", name: "third", read: () => "3" });
    await heard(seen, "notifications/resources/list_changed");
    spec.addPrompt({ name: "p2", render: () => "two" });
    await heard(seen, "notifications/prompts/list_changed");

    spec.resourceUpdated("a://other");
    spec.resourceUpdated("a://watched");
    await heard(seen, "notifications/resources/updated a://watched");
    expect(seen).not.toContain("notifications/resources/updated a://other");
    await sub.close();
  });

  it("the package's MCPClient lists a tool the spec adds at once though the lists say 60 s (its listen stream drops the cache)", async () => {
    const spec = await growingSpec({ ttlMs: 60_000 });
    await using client = await MCPClient.start(new StreamableHttpServer({ url: spec.url!, headers: spec.authHeaders }));
    expect(client.protocolVersion).toBe("2026-07-28");
    expect((await client.listTools()).map((t) => t.name)).toEqual(["first"]);
    spec.addTool(named("second"));
    const names = await untilValue(
      async () => (await client.listTools()).map((t) => t.name),
      (n) => n.includes("second"),
      "the added tool in the list",
      3000,
    );
    expect(names).toEqual(["first", "second"]);
  });
});

describe("2025-11-25: resources/updated is sent to the sessions that subscribed", () => {
  it("a subscribed session hears of its URI, not of another; an unsubscribed one hears nothing", async () => {
    const spec = await growingSpec();
    const a = await sdkClient(spec, "2025-11-25");
    const b = await sdkClient(spec, "2025-11-25");
    await using subscribed = a.client;
    await using bystander = b.client;
    await Promise.all([a.streamOpen, b.streamOpen]);
    const seenA = recorder(subscribed);
    const seenB = recorder(bystander);
    await subscribed.subscribeResource({ uri: "a://watched" });

    spec.resourceUpdated("a://other");
    spec.resourceUpdated("a://watched");
    await heard(seenA, "notifications/resources/updated a://watched");
    spec.addTool(named("second")); // a later notification every session gets: by then b would have heard an update
    await heard(seenB, "notifications/tools/list_changed");
    expect(seenA).not.toContain("notifications/resources/updated a://other");
    expect(seenB.filter((n) => n.startsWith("notifications/resources/updated"))).toEqual([]);

    await subscribed.unsubscribeResource({ uri: "a://watched" });
    spec.resourceUpdated("a://watched");
    spec.addPrompt({ name: "p2", render: () => "two" });
    await heard(seenA, "notifications/prompts/list_changed");
    expect(seenA.filter((n) => n === "notifications/resources/updated a://watched")).toHaveLength(1);
  });

  it("resourceUpdated refuses an empty URI and a stdio spec, naming what is accepted", async () => {
    const spec = await growingSpec();
    expect(() => spec.resourceUpdated("")).toThrow(OptionsError);
    expect(() => spec.resourceUpdated("")).toThrow(/uri must be a non-empty string/);
    const stdio = await serveRegistry([named("first")], {
      name: "news",
      ctx: makeTestCtx(),
      transport: "stdio",
      command: ["node", "serve.js"],
    });
    specs.push(stdio); // its config file is removed by stop()
    expect(() => stdio.resourceUpdated("a://watched")).toThrow(/a stdio spec serves from the child the CLI spawns/);
  });
});

describe("cache hints on 2026-07-28 results", () => {
  it("lists carry the spec's cacheHint, a resource's read its own (object or @Resource); without a hint the SDK's conservative 0/private", async () => {
    const spec = await growingSpec({ ttlMs: 60_000, cacheScope: "public" });
    const { client } = await sdkClient(spec, "2026-07-28");
    await using c = client;
    expect(await c.listTools()).toMatchObject({ ttlMs: 60_000, cacheScope: "public" });
    expect(await c.listPrompts()).toMatchObject({ ttlMs: 60_000, cacheScope: "public" });
    expect(await c.listResources()).toMatchObject({ ttlMs: 60_000, cacheScope: "public" });
    expect(await c.readResource({ uri: "a://watched" })).toMatchObject({ ttlMs: 5000, cacheScope: "public" });
    expect(await c.readResource({ uri: "a://decorated" })).toMatchObject({ ttlMs: 7000, cacheScope: "private" });
    expect(await c.readResource({ uri: "a://other" })).toMatchObject({ ttlMs: 0, cacheScope: "private" });

    const plain = await growingSpec();
    const { client: other } = await sdkClient(plain, "2026-07-28");
    await using o = other;
    expect(await o.listTools()).toMatchObject({ ttlMs: 0, cacheScope: "private" });
  });

  it("a 2025 session's results carry no cache fields", async () => {
    const spec = await growingSpec({ ttlMs: 60_000 });
    const { client } = await sdkClient(spec, "2025-11-25");
    await using c = client;
    expect(await c.listTools()).not.toHaveProperty("ttlMs");
    expect(await c.readResource({ uri: "a://watched" })).not.toHaveProperty("ttlMs");
  });

  it("a bad hint is refused before anything binds (a @Resource's when applied), naming what is accepted", async () => {
    await expect(serveRegistry([named("first")], { name: "news", ctx: makeTestCtx(), cacheHint: { ttlMs: -1 } })).rejects.toThrow(
      "serveRegistry: cacheHint: ttlMs must be a non-negative integer of milliseconds, got number -1",
    );
    await expect(
      serveRegistry([named("first")], { name: "news", ctx: makeTestCtx(), cacheHint: { cacheScope: "shared" as never } }),
    ).rejects.toThrow('cacheScope must be "public" or "private", got string "shared"');
    await expect(
      serveRegistry([named("first")], {
        name: "news",
        ctx: makeTestCtx(),
        resources: [{ uri: "a://x", name: "x", read: () => "x", cacheHint: { ttlMs: 1.5 } }],
      }),
    ).rejects.toThrow("resource on x: cacheHint ttlMs must be a non-negative integer of milliseconds, got number 1.5");
    expect(() => {
      @Resource({ uri: "a://bad", cacheHint: { cacheScope: "everyone" as never } })
      class BadHint {
        read() {
          return "";
        }
      }
      void BadHint;
    }).toThrow(DefinitionError);
  });
});

/**
 * Counts the `subscriptions/listen` requests of this process's clients that
 * the server answered (it subscribes a stream to its changes before it
 * answers), through the global `fetch`, which an `MCPClient` opened after
 * this call takes; undone after each test.
 */
function listensAnswered(): { count: number } {
  const realFetch = globalThis.fetch;
  const listens = { count: 0 };
  vi.stubGlobal("fetch", async (input: string | URL | Request, init?: RequestInit) => {
    const res = await realFetch(input, init);
    if (typeof init?.body === "string" && init.body.includes('"method":"subscriptions/listen"')) listens.count++;
    return res;
  });
  return listens;
}

describe("a dropped listen stream is opened again", () => {
  it("after the endpoint stops and serves again, the MCPClient listens anew: a tool added later is listed before the lists' 60 s", async () => {
    const spec = await growingSpec({ ttlMs: 60_000 });
    const listens = listensAnswered();
    await using client = await MCPClient.start(new StreamableHttpServer({ url: spec.url!, headers: spec.authHeaders }));
    expect((await client.listTools()).map((t) => t.name)).toEqual(["first"]);
    expect(listens.count).toBe(1);
    await spec.stop(); // ends the listen stream (and every exchange in flight)
    await spec.start();
    expect((await client.listTools()).map((t) => t.name)).toEqual(["first"]);
    // The client listens again after a short pause; a tool added once the server answered is heard of, and listed (it would not be, within the 60 s the lists say, without a new stream).
    await until(
      () => listens.count === 2,
      () => `the MCPClient to listen again (${listens.count} listen requests answered)`,
    );
    spec.addTool(named("added"));
    await untilValue(
      async () => (await client.listTools()).map((t) => t.name),
      (names) => names.includes("added"),
      "the tool added after the new listen stream to be listed",
    );
  });
});
