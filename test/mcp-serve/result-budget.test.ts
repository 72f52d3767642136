/**
 * @module test/mcp-serve/result-budget.test
 * Served results within a budget, over real sockets and pipes: a 200,000-
 * character JSON result is answered with a valid preview, a note and a
 * `resource_link` (within the 20,000 default); `read_result` pages it back
 * byte for byte with `{ offset, nextOffset, total }`; the resource reads the
 * whole; `structuredContent` goes out whole; `tools/list` carries Claude
 * Code's `anthropic/*` hints in both eras; a result kept is the caller's
 * (hosted: another principal cannot read it) and expires (a fake clock);
 * every serving path (loopback, stdio, @McpServer, mcpRouter) takes
 * `results` and refuses a bad budget naming it.
 */
import "reflect-metadata";
import { PassThrough } from "node:stream";
import { createInterface } from "node:readline";
import { container } from "tsyringe";
import { v2Client, type TestV2Client } from "../helpers/v2-client.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Ajv2020 } from "ajv/dist/2020.js";
import { DefinitionError, OptionsError, RunContext, Tool, tool } from "../../src/index.js";
import { bootstrap, McpServer, serveRegistry, type McpApp, type McpServerSpec } from "../../src/mcp/index.js";
import { openStdioServing } from "../../src/mcp/serve/serve-stdio.js";
import { ServedSpecs } from "./helpers.js";
import { closeAll, grant, hosted, sayYes } from "../express/kit.js";
import { mcpRouter } from "../../src/express/index.js";

const specs = new ServedSpecs();
const apps: McpApp[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await specs.stopAll();
  while (apps.length) await apps.pop()!.stop();
  await closeAll();
});

/** 200,000-odd characters of JSON: an array of records. */
function bigJson(chars = 200_000): string {
  const rows: Array<{ id: number; name: string; tags: string[] }> = [];
  for (let i = 0, n = 2; n < chars; i++) {
    const row = { id: i, name: `record-${i}`, tags: ["alpha", "beta", `t${i % 7}`] };
    rows.push(row);
    n += JSON.stringify(row).length + 1;
  }
  return JSON.stringify(rows);
}

const BIG = bigJson();
/** Over the default budget of 20,000 and under Claude Code's 50,000: what a default-on budget changes. */
const THIRTY = bigJson(30_000);
const RESULTS = "agentkit://results/";
const dump = tool({ name: "dump", description: "Dump every record.", sideEffecting: false }, () => BIG);
const thirty = tool({ name: "thirty", description: "30,000 characters of records.", sideEffecting: false }, () => THIRTY);
const small = tool({ name: "small", description: "A short answer.", sideEffecting: false }, () => "short");
const wide = tool({ name: "wide", description: "A long answer shown whole.", sideEffecting: false, maxResultChars: 120_000 }, () =>
  "w".repeat(100_000),
);
const hinted = tool(
  { name: "hinted", description: "Find by hint.", sideEffecting: false, searchHint: "weather forecast by city", alwaysLoad: true },
  () => "sunny",
);
const structured = tool(
  {
    name: "structured",
    description: "Structured.",
    sideEffecting: false,
    outputSchema: {
      type: "object",
      properties: {
        rows: {
          type: "array",
          items: {
            type: "object",
            properties: { id: { type: "integer" }, name: { type: "string" }, tags: { type: "array", items: { type: "string" } } },
            required: ["id", "name", "tags"],
            additionalProperties: false,
          },
        },
      },
      required: ["rows"],
      additionalProperties: false,
    },
  },
  () => ({ rows: JSON.parse(BIG) as unknown[] }),
);

async function served(options: Partial<Parameters<typeof serveRegistry>[1]> = {}): Promise<McpServerSpec> {
  const spec = await serveRegistry([dump, small, wide, hinted, structured], {
    name: "engine",
    ctx: new RunContext(),
    results: {},
    ...options,
  });
  specs.track(spec);
  await spec.start();
  return spec;
}

/** An SDK v2 client on `spec`, pinned to `pin` or on the SDK's default negotiation. */
const client = (spec: McpServerSpec, pin?: "2026-07-28" | "2025-11-25") => v2Client(spec.url!, { headers: spec.authHeaders, version: pin });

type Block = { type: string; text?: string; uri?: string };
const texts = (content: unknown): string =>
  (content as Block[])
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join("");
const chars = (content: unknown): number => (content as Block[]).reduce((n, b) => n + (b.text?.length ?? 0), 0);
const linkOf = (content: unknown): string => (content as Block[]).find((b) => b.type === "resource_link")!.uri!;

/** Page a result back through read_result, as a client without resources would. */
async function readAll(c: TestV2Client, id: string, whole = BIG): Promise<{ joined: string; calls: number }> {
  let offset: number | null = 0;
  let joined = "";
  let calls = 0;
  while (offset !== null) {
    const r = await c.callTool({ name: "read_result", arguments: { id, offset } });
    calls++;
    expect(r.isError).toBeFalsy();
    const sc = r.structuredContent as { offset: number; nextOffset: number | null; total: number; text: string };
    const page = (r.content as Block[])[0]!.text!;
    expect(sc.text === page).toBe(true);
    expect(sc.offset).toBe(offset);
    expect(sc.total).toBe(whole.length);
    expect(page.length).toBeLessThanOrEqual(20_000);
    joined += page;
    offset = sc.nextOffset;
  }
  return { joined, calls };
}

type Reply = { result?: Record<string, unknown> & { content?: Block[]; structuredContent?: { nextOffset: number | null } } };

/** `tools` served on a pipe (openStdioServing), initialized: `send` a request and get its reply. */
async function stdioPipe(
  tools: Parameters<typeof openStdioServing>[0],
  options: Partial<Parameters<typeof openStdioServing>[1]> = {},
): Promise<{ send: (method: string, params: Record<string, unknown>) => Promise<Reply>; close: () => Promise<void> }> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const serving = await openStdioServing(tools, { name: "engine", ctx: new RunContext(), stdin, stdout, ...options });
  const lines = createInterface({ input: stdout });
  const replies = new Map<number, (m: Reply) => void>();
  lines.on("line", (line) => {
    const m = JSON.parse(line) as { id?: number };
    if (typeof m.id === "number") replies.get(m.id)?.(m as Reply);
  });
  let n = 0;
  const send = (method: string, params: Record<string, unknown>): Promise<Reply> => {
    const id = ++n;
    const reply = new Promise<Reply>((resolve) => replies.set(id, resolve));
    stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    return reply;
  };
  await send("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "pipe", version: "1" } });
  return {
    send,
    close: async () => {
      lines.close();
      await serving.close();
    },
  };
}

describe("served results within a budget", () => {
  for (const pin of [undefined, "2026-07-28" as const]) {
    const era = pin ?? "2025 handshake";
    it(`${era}: a 200,000-character JSON result is a valid preview, a note and a link within 20,000; read_result pages it back byte for byte; the resource reads the whole`, async () => {
      const spec = await served();
      const c = await client(spec, pin);
      try {
        const r = await c.callTool({ name: "dump", arguments: {} });
        expect(chars(r.content)).toBeLessThanOrEqual(20_000);
        const blocks = r.content as Block[];
        const rows = JSON.parse(blocks[0]!.text!) as Array<{ id: number }>;
        expect(rows.length).toBeGreaterThan(10);
        expect(rows.map((x) => x.id)).toEqual(rows.map((_, i) => i));
        expect(BIG.startsWith(blocks[0]!.text!.slice(0, -1))).toBe(true);
        expect(blocks[1]!.text).toMatch(/^\[Result of 'dump': 2\d\d,\d{3} characters of JSON, over its 20,000-character budget/);
        const uri = linkOf(r.content);
        expect(uri).toMatch(/^agentkit:\/\/results\/[A-Za-z0-9_-]{24}$/);
        const id = uri.slice("agentkit://results/".length);
        expect(blocks[1]!.text).toContain(`read_result {"id":"${id}","offset":`);
        const { joined, calls } = await readAll(c, id);
        expect(joined === BIG).toBe(true);
        expect(calls).toBeGreaterThan(9);
        const read = await c.readResource({ uri });
        expect((read.contents[0] as { text: string }).text === BIG).toBe(true);
        expect(read.contents[0]!.mimeType).toBe("application/json");
        // Under the budget: as it was.
        expect((await c.callTool({ name: "small", arguments: {} })).content).toEqual([{ type: "text", text: "short" }]);
        // A declared 120,000: a 100,000-character answer goes out whole.
        expect(chars((await c.callTool({ name: "wide", arguments: {} })).content)).toBe(100_000);
      } finally {
        await c.close();
      }
    });

    it(`${era}: tools/list carries anthropic/searchHint, alwaysLoad and maxResultSizeChars (only over 50,000); read_result is listed and loads up front`, async () => {
      const spec = await served();
      const c = await client(spec, pin);
      try {
        const { tools } = await c.listTools();
        const meta = Object.fromEntries(tools.map((t) => [t.name, t._meta ?? {}]));
        expect(meta.hinted).toMatchObject({ "anthropic/searchHint": "weather forecast by city", "anthropic/alwaysLoad": true });
        expect(meta.hinted).not.toHaveProperty("anthropic/maxResultSizeChars");
        expect(meta.wide).toMatchObject({ "anthropic/maxResultSizeChars": 120_000 });
        expect(meta.dump).not.toHaveProperty("anthropic/maxResultSizeChars");
        expect(meta.dump).not.toHaveProperty("anthropic/searchHint");
        expect(meta.read_result).toMatchObject({ "anthropic/alwaysLoad": true });
        expect(tools.find((t) => t.name === "read_result")!.outputSchema).toBeDefined();
      } finally {
        await c.close();
      }
    });
  }

  it("budgets are on by default: served with no results option, a 30,000-character result is a preview and a resource_link within 20,000, read back whole through read_result; results: false answers it whole", async () => {
    const on = await serveRegistry([thirty, small], { name: "engine", ctx: new RunContext() });
    specs.track(on);
    await on.start();
    expect(on.toolNames).toEqual(["mcp__engine__read_result", "mcp__engine__small", "mcp__engine__thirty"]);
    const c = await client(on);
    try {
      expect((await c.listTools()).tools.map((t) => t.name)).toEqual(["thirty", "small", "read_result"]);
      expect(c.getServerCapabilities()).toHaveProperty("resources");
      const r = await c.callTool({ name: "thirty", arguments: {} });
      expect(chars(r.content)).toBeLessThanOrEqual(20_000);
      expect(texts(r.content)).toMatch(/over its 20,000-character budget/);
      const uri = linkOf(r.content);
      const { joined } = await readAll(c, uri.slice(RESULTS.length), THIRTY);
      expect(joined === THIRTY).toBe(true);
      expect((await c.callTool({ name: "small", arguments: {} })).content).toEqual([{ type: "text", text: "short" }]);
    } finally {
      await c.close();
    }
    // One at a time: specs of a process share its loopback listener, whose port is free only once both stop.
    await specs.stopAll();
    const off = await serveRegistry([thirty, small], { name: "engine", ctx: new RunContext(), results: false });
    specs.track(off);
    await off.start();
    expect(off.toolNames).toEqual(["mcp__engine__small", "mcp__engine__thirty"]);
    const d = await client(off);
    try {
      expect((await d.listTools()).tools.map((t) => t.name)).toEqual(["thirty", "small"]);
      expect(d.getServerCapabilities()).not.toHaveProperty("resources");
      const r = await d.callTool({ name: "thirty", arguments: {} });
      expect(r.content).toHaveLength(1);
      expect(texts(r.content) === THIRTY).toBe(true);
    } finally {
      await d.close();
    }
  });

  it("budgets are on by default on stdio, @McpServer and mcpRouter too; results: false turns them off on each", async () => {
    // stdio: the pipe itself.
    for (const results of [undefined, false] as const) {
      const pipe = await stdioPipe([thirty], results === undefined ? {} : { results });
      try {
        const names = ((await pipe.send("tools/list", {})).result!.tools as Array<{ name: string }>).map((t) => t.name);
        const r = (await pipe.send("tools/call", { name: "thirty", arguments: {} })).result!;
        if (results === false) {
          expect(names).toEqual(["thirty"]);
          expect(texts(r.content) === THIRTY).toBe(true);
        } else {
          expect(names).toEqual(["thirty", "read_result"]);
          expect(chars(r.content)).toBeLessThanOrEqual(20_000);
          const id = linkOf(r.content).slice(RESULTS.length);
          const page = (await pipe.send("tools/call", { name: "read_result", arguments: { id, offset: 0 } })).result!;
          expect(THIRTY.startsWith(page.content![0]!.text!)).toBe(true);
        }
      } finally {
        await pipe.close();
      }
    }
    // @McpServer, bootstrapped on loopback.
    @McpServer({ name: "engine", tools: [thirty] })
    class Engine {}
    @McpServer({ name: "engine", tools: [thirty], results: false })
    class WholeEngine {}
    for (const [module, budgeted] of [
      [Engine, true],
      [WholeEngine, false],
    ] as const) {
      const app = await bootstrap(module, { container: container.createChildContainer() });
      apps.push(app);
      expect(app.spec!.toolNames).toEqual(budgeted ? ["mcp__engine__read_result", "mcp__engine__thirty"] : ["mcp__engine__thirty"]);
      const c = await client(app.spec!);
      try {
        const r = await c.callTool({ name: "thirty", arguments: {} });
        if (budgeted) expect((await readAll(c, linkOf(r.content).slice(RESULTS.length), THIRTY)).joined === THIRTY).toBe(true);
        else expect(texts(r.content) === THIRTY).toBe(true);
      } finally {
        await c.close();
      }
    }
    // mcpRouter: tools with no option, and the module saying results: false.
    const h = await hosted([thirty], { name: "engine" });
    const hc = await v2Client(h.url, { token: grant(h, "tok-on", []), elicit: sayYes });
    const whole = await hosted(WholeEngine, {});
    const wc = await v2Client(whole.url, { token: grant(whole, "tok-off", []), version: "2026-07-28", elicit: sayYes });
    try {
      expect((await hc.listTools()).tools.map((t) => t.name)).toEqual(["thirty", "read_result"]);
      const r = await hc.callTool({ name: "thirty", arguments: {} });
      expect(chars(r.content)).toBeLessThanOrEqual(20_000);
      expect((await readAll(hc, linkOf(r.content).slice(RESULTS.length), THIRTY)).joined === THIRTY).toBe(true);
      expect((await wc.listTools()).tools.map((t) => t.name)).toEqual(["thirty"]);
      expect(texts((await wc.callTool({ name: "thirty", arguments: {} })).content) === THIRTY).toBe(true);
    } finally {
      await Promise.all([hc.close(), wc.close()]);
    }
  });

  it("results: false leaves a tool's own maxResultChars in force: that tool alone is budgeted, and read_result is served for it", async () => {
    const capped = tool({ name: "capped", description: "Capped.", sideEffecting: false, maxResultChars: 5_000 }, () => THIRTY);
    const spec = await serveRegistry([thirty, capped], { name: "engine", ctx: new RunContext(), results: false });
    specs.track(spec);
    await spec.start();
    const c = await client(spec);
    try {
      expect((await c.listTools()).tools.map((t) => t.name)).toEqual(["thirty", "capped", "read_result"]);
      expect(texts((await c.callTool({ name: "thirty", arguments: {} })).content) === THIRTY).toBe(true);
      const r = await c.callTool({ name: "capped", arguments: {} });
      expect(chars(r.content)).toBeLessThanOrEqual(5_000);
      expect(texts(r.content)).toMatch(/over its 5,000-character budget/);
      expect((await readAll(c, linkOf(r.content).slice(RESULTS.length), THIRTY)).joined === THIRTY).toBe(true);
    } finally {
      await c.close();
    }
  });

  it("structuredContent is never cut: a tool with an outputSchema over budget keeps it whole and valid against its schema while its text is spilled and read back whole", async () => {
    const spec = await served();
    const c = await client(spec);
    try {
      // Listed first, so the SDK client checks structuredContent against the outputSchema on the call too.
      const listed = (await c.listTools()).tools.find((t) => t.name === "structured")!;
      const r = await c.callTool({ name: "structured", arguments: {} });
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent).toEqual({ rows: JSON.parse(BIG) });
      const valid = new Ajv2020({ strict: false }).compile(listed.outputSchema!);
      expect(valid(r.structuredContent), JSON.stringify(valid.errors)).toBe(true);
      // The text is what is spilled: within the budget, a link, and the whole read back equals structuredContent.
      expect(chars(r.content)).toBeLessThanOrEqual(20_000);
      // One member too long for the preview: the preview is the object with none of its members, still valid JSON.
      expect(JSON.parse((r.content as Block[])[0]!.text!)).toEqual({});
      const read = await c.readResource({ uri: linkOf(r.content) });
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual(r.structuredContent);
    } finally {
      await c.close();
    }
  });

  it("a module's results.maxChars over 50,000 is every tool's hint, capped at 500,000; a budget of 1,000,000 still answers within 500,000", async () => {
    const spec = await served({ results: { maxChars: 1_000_000 } });
    const c = await client(spec);
    try {
      const { tools } = await c.listTools();
      expect(tools.find((t) => t.name === "dump")!._meta).toMatchObject({ "anthropic/maxResultSizeChars": 500_000 });
      expect(tools.find((t) => t.name === "wide")!._meta).toMatchObject({ "anthropic/maxResultSizeChars": 120_000 });
      expect(texts((await c.callTool({ name: "dump", arguments: {} })).content)).toBe(BIG);
    } finally {
      await c.close();
    }
  });

  it("a kept result expires: after the store's hour, read_result and the resource name the id and say it is gone (a fake clock)", async () => {
    const spec = await served();
    const c = await client(spec);
    try {
      const uri = linkOf((await c.callTool({ name: "dump", arguments: {} })).content);
      const id = uri.slice("agentkit://results/".length);
      vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 3_600_001 });
      const r = await c.callTool({ name: "read_result", arguments: { id } });
      expect(r.isError).toBe(true);
      expect(texts(r.content)).toContain(
        `read_result: no result '${id}' (unknown, expired — results are kept 60 minutes — or not this caller's)`,
      );
      await expect(c.readResource({ uri })).rejects.toThrow(`no result '${id}'`);
    } finally {
      await c.close();
    }
  });

  it("hosted: a kept result is its principal's; another principal's read_result and resources/read are refused alike, the owner reads it with a new token", async () => {
    const h = await hosted([dump], { name: "engine", results: {} });
    const alice = await v2Client(h.url, { token: grant(h, "tok-alice", []), elicit: sayYes });
    const mallory = await v2Client(h.url, {
      token: grant(h, "tok-mallory", [], { clientId: "client-m", subject: "mallory" }),
      version: "2026-07-28",
      elicit: sayYes,
    });
    const aliceAgain = await v2Client(h.url, { token: grant(h, "tok-alice-2", []), version: "2026-07-28", elicit: sayYes });
    try {
      const uri = linkOf((await alice.callTool({ name: "dump", arguments: {} })).content);
      const id = uri.slice("agentkit://results/".length);
      const refused = await mallory.callTool({ name: "read_result", arguments: { id } });
      expect(refused.isError).toBe(true);
      expect(texts(refused.content)).toContain(`no result '${id}'`);
      await expect(mallory.readResource({ uri })).rejects.toThrow(`no result '${id}'`);
      const page = await aliceAgain.callTool({ name: "read_result", arguments: { id, length: 1_000 } });
      expect((page.content as Block[])[0]!.text).toBe(BIG.slice(0, (page.structuredContent as { nextOffset: number }).nextOffset));
    } finally {
      await Promise.all([alice.close(), mallory.close(), aliceAgain.close()]);
    }
  });

  it("stdio and @McpServer take results too: a result over maxChars is spilled and read back on the same pipe / module", async () => {
    const pipe = await stdioPipe([dump], { results: { maxChars: 5_000 } });
    try {
      const r = await pipe.send("tools/call", { name: "dump", arguments: {} });
      expect(chars(r.result!.content)).toBeLessThanOrEqual(5_000);
      const id = linkOf(r.result!.content).slice("agentkit://results/".length);
      const page = await pipe.send("tools/call", { name: "read_result", arguments: { id, offset: 0 } });
      expect(BIG.startsWith(page.result!.content![0]!.text!)).toBe(true);
      expect(page.result!.content![0]!.text!.length).toBeLessThanOrEqual(5_000);
    } finally {
      await pipe.close();
    }

    @McpServer({ name: "engine", tools: [dump], results: { maxChars: 3_000 } })
    class Engine {}
    const app = await bootstrap(Engine, { container: container.createChildContainer() });
    apps.push(app);
    const c = await client(app.spec!);
    try {
      const r = await c.callTool({ name: "dump", arguments: {} });
      expect(chars(r.content)).toBeLessThanOrEqual(3_000);
      expect(app.spec!.toolNames).toEqual(["mcp__engine__dump", "mcp__engine__read_result"]);
    } finally {
      await c.close();
    }
  });

  it("a budget that is not a positive integer is refused where it is given, naming it and what is accepted", async () => {
    for (const bad of [0, -5, 1.5, "20000", null]) {
      expect(() => tool({ name: "t", description: "T.", maxResultChars: bad as never }, () => "")).toThrow(DefinitionError);
      expect(() => tool({ name: "t", description: "T.", maxResultChars: bad as never }, () => "")).toThrow(
        /maxResultChars.*a positive whole number of characters/,
      );
    }
    expect(() => {
      @Tool({ description: "D.", maxResultChars: 0 })
      class DTool {
        run(): string {
          return "";
        }
      }
      return DTool;
    }).toThrow(/maxResultChars/);
    expect(() => tool({ name: "t", description: "T.", searchHint: "" }, () => "")).toThrow(/searchHint/);
    expect(() => tool({ name: "t", description: "T.", alwaysLoad: "yes" as never }, () => "")).toThrow(/alwaysLoad/);
    await expect(serveRegistry([small], { name: "engine", ctx: new RunContext(), results: { maxChars: 0 } })).rejects.toThrow(
      /serveRegistry: results\.maxChars must be a positive whole number of characters.*got number 0/,
    );
    await expect(
      serveRegistry([small], { name: "engine", ctx: new RunContext(), results: { maxChars: 100, store: {} as never } }),
    ).rejects.toThrow(/results\.store must be a result store/);
    await expect(serveRegistry([small], { name: "engine", ctx: new RunContext(), results: { max: 1 } as never })).rejects.toThrow(
      /results\.max must be one of maxChars, store/,
    );
    await expect(
      openStdioServing([small], {
        name: "engine",
        ctx: new RunContext(),
        stdin: new PassThrough(),
        stdout: new PassThrough(),
        results: { maxChars: 2.5 },
      }),
    ).rejects.toThrow(OptionsError);
    expect(() => {
      @McpServer({ name: "engine", tools: [], results: { maxChars: -1 } })
      class M {}
      return M;
    }).toThrow(/results\.maxChars must be a positive whole number/);
    const router = {
      resource: "http://127.0.0.1:9/mcp",
      authorizationServers: ["http://127.0.0.1:9/issuer"],
      verifyAccessToken: () => ({ clientId: "c", scopes: [] }),
    };
    expect(() => mcpRouter([small], { ...router, results: { maxChars: "big" } } as never)).toThrow(
      /results\.maxChars must be a positive whole number/,
    );
    await expect(serveRegistry([small], { name: "engine", ctx: new RunContext(), results: true as never })).rejects.toThrow(
      /serveRegistry: results must be an object \{ maxChars\?, store\? \}, or false \(no module-wide budget\), got boolean true/,
    );
    const mine = tool({ name: "read_result", description: "Mine.", sideEffecting: false }, () => "");
    // Budgets are on by default, so a tool of the module's own named read_result is refused unless they are turned off.
    await expect(serveRegistry([mine], { name: "engine", ctx: new RunContext() })).rejects.toThrow(
      /tool 'read_result' serves as 'read_result', the name of the module's own tool.*rename it, or serve with results: false/,
    );
    expect(specs.track(await serveRegistry([mine], { name: "engine", ctx: new RunContext(), results: false })).toolNames).toEqual([
      "mcp__engine__read_result",
    ]);
  });
});
