/** @module test/mcp-client/servers.test */
import { describe, expect, it } from "vitest";
import { OptionsError } from "../../src/index.js";
import { MCPClient, StdioServer, StreamableHttpServer } from "../../src/mcp/index.js";
import { TailBuffer } from "../../src/mcp/client/stdio-transport.js";
import { TtlCache } from "../../src/mcp/client/ttl-cache.js";
import { NODE, fixture } from "./support.js";

describe("StdioServer", () => {
  it("is frozen, with args and env frozen copies of what was passed", () => {
    const env = { TZ: "UTC" };
    const args = ["mcp-server-time", "--local-timezone", "UTC"];
    const s = new StdioServer({ command: "uvx", args, env, cwd: "/srv/workdir" });
    expect(Object.isFrozen(s)).toBe(true);
    expect(Object.isFrozen(s.env)).toBe(true);
    expect(Object.isFrozen(s.args)).toBe(true);
    env.TZ = "Europe/Paris";
    args.push("--evil");
    expect(s.env).toEqual({ TZ: "UTC" });
    expect(s.args).toEqual(["mcp-server-time", "--local-timezone", "UTC"]);
    expect(() => ((s.env as Record<string, string>).TZ = "x")).toThrow(TypeError);
    expect(() => ((s as { command: string }).command = "sh")).toThrow(TypeError);
    expect(s.stderr).toBe("pipe");
    expect(String(s)).toBe("stdio server 'uvx mcp-server-time --local-timezone UTC'");
  });

  it("identity is command, args and cwd — not env, not stderr", () => {
    const a = new StdioServer({ command: "uvx", args: ["x"], env: { A: "1" }, cwd: "/w" });
    const b = new StdioServer({ command: "uvx", args: ["x"], env: { A: "2", B: "3" }, cwd: "/w", stderr: "inherit" });
    expect(a.equals(b)).toBe(true);
    expect(a.key).toBe(b.key);
    expect(a.equals(new StdioServer({ command: "uvx", args: ["x"], cwd: "/other" }))).toBe(false);
    expect(a.equals(new StdioServer({ command: "uvx", args: ["y"], cwd: "/w" }))).toBe(false);
    expect(a.equals(new StdioServer({ command: "npx", args: ["x"], cwd: "/w" }))).toBe(false);
    expect(new Map([[a.key, 1]]).get(b.key)).toBe(1);
  });

  it("refuses bad options when constructed, naming the field", () => {
    expect(() => new StdioServer({ command: "" })).toThrow("StdioServer: 'command' is required");
    expect(() => new StdioServer({ command: "x", args: [1] as never })).toThrow("StdioServer: 'args' must be an array of strings");
    expect(() => new StdioServer({ command: "x", env: { A: 1 } as never })).toThrow("StdioServer: 'env.A' must be a string, got number");
    expect(() => new StdioServer({ command: "x", stderr: "ignore" as never })).toThrow(
      `StdioServer: stderr must be one of "pipe", "inherit" (default "pipe"), got string "ignore"`,
    );
  });
});

describe("StreamableHttpServer", () => {
  it("is frozen, with headers a frozen copy; identity is url and timeoutMs, not headers", () => {
    const headers = { Authorization: "Bearer a" };
    const s = new StreamableHttpServer({ url: "https://mcp.example.com/mcp?k=secret", headers, timeoutMs: 30_000 });
    expect(Object.isFrozen(s)).toBe(true);
    expect(Object.isFrozen(s.headers)).toBe(true);
    headers.Authorization = "Bearer edited-after-review";
    expect(s.headers).toEqual({ Authorization: "Bearer a" });
    expect(() => ((s.headers as Record<string, string>).Authorization = "x")).toThrow(TypeError);
    const other = new StreamableHttpServer({
      url: "https://mcp.example.com/mcp?k=secret",
      headers: { Authorization: "Bearer b" },
      timeoutMs: 30_000,
    });
    expect(s.equals(other)).toBe(true);
    expect(s.equals(new StreamableHttpServer({ url: "https://mcp.example.com/mcp?k=secret", timeoutMs: 10_000 }))).toBe(false);
    expect(s.equals(new StreamableHttpServer({ url: "https://mcp.example.com/other", timeoutMs: 30_000 }))).toBe(false);
    // Messages never show headers, query strings or userinfo.
    expect(String(new StreamableHttpServer({ url: "https://u:p@mcp.example.com/mcp?k=secret" }))).toBe(
      "streamable HTTP server https://mcp.example.com/mcp",
    );
    expect(new StreamableHttpServer({ url: "http://127.0.0.1:1/mcp" }).timeoutMs).toBe(30_000);
  });

  it("refuses bad options when constructed", () => {
    expect(() => new StreamableHttpServer({ url: "not a url" })).toThrow(
      `StreamableHttpServer: 'url' must be an absolute http(s) URL, got "not a url"`,
    );
    expect(() => new StreamableHttpServer({ url: "file:///etc/passwd" })).toThrow(
      `StreamableHttpServer: 'url' must use http: or https:, got "file:"`,
    );
    expect(() => new StreamableHttpServer({ url: "http://x/mcp", timeoutMs: 0 })).toThrow(
      "StreamableHttpServer: 'timeoutMs' must be a positive number of milliseconds, got number 0",
    );
    expect(() => new StreamableHttpServer({ url: "http://x/mcp", headers: { A: 1 } as never })).toThrow(
      "StreamableHttpServer: 'headers.A' must be a string, got number",
    );
  });
});

describe("MCPClient.start argument checks", () => {
  it("refuses a server that is not one of the two configs", async () => {
    await expect(MCPClient.start({ command: "x" } as never)).rejects.toThrow(
      "MCPClient.start: server must be a StdioServer or a StreamableHttpServer",
    );
    await expect(MCPClient.start(new StdioServer({ command: "x" }), { ttlMs: -1 })).rejects.toThrow(
      "MCPClient.start: ttlMs must be a non-negative number of milliseconds, got -1",
    );
    await expect(MCPClient.start({ kind: "stdio", command: "" } as never)).rejects.toThrow("StdioServer: 'command' is required");
  });

  it("refuses an option it does not know, naming it and the accepted ones (each used to be dropped silently)", async () => {
    const refusal = (run: () => unknown): OptionsError => {
      try {
        run();
      } catch (err) {
        return err as OptionsError;
      }
      throw new Error("accepted");
    };
    const stdio = refusal(() => new StdioServer({ command: "x", arg: ["y"] } as never));
    expect(stdio).toBeInstanceOf(OptionsError);
    expect([stdio.code, stdio.where, stdio.option, stdio.message]).toEqual([
      "invalid_option",
      "StdioServer",
      "arg",
      "StdioServer: unknown option 'arg'. Accepted options: command, args, env, cwd, stderr, protocol",
    ]);
    expect(refusal(() => new StreamableHttpServer({ url: "http://x/mcp", header: {} } as never)).message).toBe(
      "StreamableHttpServer: unknown option 'header'. Accepted options: url, headers, timeoutMs, auth, protocol",
    );
    expect(refusal(() => new StreamableHttpServer({ url: "http://x/mcp", auth: "basic" } as never)).message).toBe(
      `StreamableHttpServer: 'auth' must be "oauth" or an OAuthClientProvider (e.g. oauthProvider({ ... })), got string "basic"`,
    );
    await expect(MCPClient.start(new StdioServer({ command: "x" }), { timeout: 5 } as never)).rejects.toThrow(
      "MCPClient.start: unknown option 'timeout'. Accepted options: clientInfo, ttlMs, requestTimeoutMs, signal, ctx, roots, tasks, maxResultChars, allowSampling, maxSamplingTokens, maxServerRequests, restart",
    );
    await expect(MCPClient.start(new StdioServer({ command: "x" }), { restart: { maxRestarts: 1, backoff: 5 } } as never)).rejects.toThrow(
      "MCPClient.start: 'restart': unknown option 'backoff'. Accepted options: maxRestarts, backoffMs",
    );
    await expect(MCPClient.start(new StdioServer({ command: "x" }), { requestTimeoutMs: 0 })).rejects.toThrow(
      "MCPClient.start: 'requestTimeoutMs' must be a positive number of milliseconds, got number 0",
    );
  });

  it("accepts a config built by another copy of the package (same shape, another class), re-validated", async () => {
    const foreign = { ...new StdioServer({ command: NODE, args: [fixture("counting-stdio-server.mjs")] }) };
    expect(foreign).not.toBeInstanceOf(StdioServer);
    await using client = await MCPClient.start(foreign as never);
    expect(client.server).toBeInstanceOf(StdioServer);
    expect((await client.listTools()).map((t) => t.name)).toContain("add");
  });
});

describe("TailBuffer", () => {
  it("keeps only the last bytes written", () => {
    const t = new TailBuffer(10);
    t.push(Buffer.from("0123456789"));
    t.push(Buffer.from("abc"));
    expect(t.text()).toBe("3456789abc");
    for (let i = 0; i < 100; i++) t.push(Buffer.from("x"));
    expect(t.text()).toBe("xxxxxxxxxx");
    t.push(Buffer.from("last line\n\n"));
    expect(t.text()).toBe("ast line");
  });
});

describe("TtlCache", () => {
  it("serves within the TTL, shares concurrent loads, and drops the value when a load fails", async () => {
    let now = 0;
    let loads = 0;
    let fail = false;
    const cache = new TtlCache<number>(100, () => now);
    const load = async () => {
      loads++;
      if (fail) throw new Error("down");
      return loads;
    };
    expect(await Promise.all([cache.get(load), cache.get(load)])).toEqual([1, 1]);
    now = 99;
    expect(await cache.get(load)).toBe(1);
    now = 100;
    expect(await cache.get(load)).toBe(2);
    fail = true;
    await expect(cache.get(load, true)).rejects.toThrow("down");
    await expect(cache.get(load)).rejects.toThrow("down"); // nothing stale is served
    expect(loads).toBe(4);
  });

  it("a load in flight when clear() runs does not repopulate the cache", async () => {
    let release!: (v: number) => void;
    const cache = new TtlCache<number>(1000);
    const pending = cache.get(() => new Promise<number>((r) => (release = r)));
    cache.clear();
    release(7);
    expect(await pending).toBe(7);
    expect(await cache.get(async () => 8)).toBe(8);
  });
});
