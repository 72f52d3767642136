/**
 * @module test/mcp-serve/spec-lifecycle.test
 * McpServerSpec's lifecycle and projections: the 0600 config in a 0700
 * directory, written before serving and removed by stop(), rewritten by a
 * second start(); the port held from serveRegistry() on and released by
 * stop(); cliOptions/codexOptions; the stdio transport and stdioCommand; and
 * serveRegistryStdio on in-process streams.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import { spawn } from "node:child_process";
import { PassThrough } from "node:stream";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RunContext, tool } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { optionsError } from "../core/helpers.js";
import { MCPClient, StreamableHttpServer } from "../../src/mcp/client/index.js";
import { serveRegistry, serveRegistryStdio, stdioCommand, type McpServerSpec } from "../../src/mcp/serve/index.js";
import { OptionsError } from "../../src/index.js";
import { codexTokenEnvVar } from "../../src/wire/codex-mcp.js";
import { INITIALIZE, holdPort, portIsFree, rawPost } from "./helpers.js";
import { until } from "../helpers/wait.js";

const runCheck = tool(
  {
    description: "Run the named check.",
    sideEffecting: false,
    input: { type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false },
  },
  function runCheck({ name }: { name: string }) {
    return `${name}:ok`;
  },
);

// A private TMPDIR per test: the spec's agentkit-* directory is then easy to see, and to see gone.
let tmp: string;
let savedTmp: string | undefined;
const specs: McpServerSpec[] = [];
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), "agentkit-serve-lifecycle-"));
  savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
});
afterEach(async () => {
  for (const s of specs.splice(0)) await s.stop();
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  const left = readdirSync(tmp);
  rmSync(tmp, { recursive: true, force: true });
  expect(left).toEqual([]);
});
async function spec(options: Partial<Parameters<typeof serveRegistry>[1]> = {}): Promise<McpServerSpec> {
  const s = await serveRegistry([runCheck], { name: "engine", ctx: makeTestCtx(), ...options });
  specs.push(s);
  return s;
}
const mode = (p: string): number => statSync(p).mode & 0o777;
const portOf = (s: McpServerSpec): number => Number(new URL(s.url!).port);

describe("McpServerSpec over HTTP", () => {
  it("writes the 0600 config into a fresh 0700 agentkit-* directory before serving; cliOptions() names that file, never its token", async () => {
    const s = await spec();
    expect(dirname(s.configPath)).toBe(join(tmp, readdirSync(tmp)[0]!));
    expect(basename(dirname(s.configPath))).toMatch(/^agentkit-/);
    expect(mode(dirname(s.configPath))).toBe(0o700);
    expect(mode(s.configPath)).toBe(0o600);
    const text = readFileSync(s.configPath, "utf8");
    expect(JSON.parse(text)).toEqual({
      mcpServers: { engine: { type: "http", url: s.url, headers: { Authorization: expect.stringMatching(/^Bearer [A-Za-z0-9_-]{43}$/) } } },
    });
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(s.authHeaders).toEqual(JSON.parse(text).mcpServers.engine.headers);
    expect(s.cliOptions().mcpConfig).toEqual([s.configPath]);
    expect(JSON.stringify(s.cliOptions())).not.toContain(s.authHeaders.Authorization!.slice("Bearer ".length));
    expect(s.configDocument()).toEqual(JSON.parse(text));
    // The port is held already, but nothing serves until start().
    expect(await portIsFree(portOf(s))).toBe(false);
    expect(s.serving).toBe(false);
    expect((await rawPost(s.url!, INITIALIZE, { ...s.authHeaders })).status).toBe(503);
  });

  it("stop() removes the file and the directory it created and frees the port; start() rewrites the file, so the spec is re-enterable", async () => {
    const s = await spec();
    const dir = dirname(s.configPath);
    const port = portOf(s);
    for (let round = 1; round <= 2; round++) {
      await s.start();
      await s.start(); // idempotent
      expect(s.serving).toBe(true);
      expect(mode(s.configPath)).toBe(0o600);
      expect(mode(dir)).toBe(0o700);
      expect(JSON.parse(readFileSync(s.configPath, "utf8"))).toEqual(s.configDocument());
      {
        await using client = await MCPClient.start(new StreamableHttpServer({ url: s.url!, headers: s.authHeaders }));
        expect((await client.callTool("run_check", { name: `round${round}` })).content).toEqual([
          { type: "text", text: `round${round}:ok` },
        ]);
      }
      await s.stop();
      await s.stop(); // idempotent
      expect(s.serving).toBe(false);
      expect(existsSync(s.configPath)).toBe(false);
      expect(existsSync(dir)).toBe(false);
      expect(await portIsFree(port)).toBe(true);
    }
    expect(portOf(s)).toBe(port);
    expect(s.callsSeen).toBe(2);
  });

  it("a configPath you give is yours: the file is created 0600 there (never over an existing file) and only the file is removed", async () => {
    const mine = mkdtempSync(join(tmp, "mine-"));
    const taken = join(mine, "taken.json");
    writeFileSync(taken, "old", { mode: 0o644 });
    await expect(spec({ configPath: taken })).rejects.toThrow(`${taken} already exists`);
    expect(readFileSync(taken, "utf8")).toBe("old");
    const path = join(mine, "engine.json");
    const s = await spec({ configPath: path });
    expect(s.configPath).toBe(path);
    expect(mode(path)).toBe(0o600);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual(s.configDocument());
    await s.start();
    await s.stop();
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(mine)).toEqual(["taken.json"]);
    rmSync(mine, { recursive: true });
  });

  it("auth 'none' is asked for by name: no headers anywhere", async () => {
    const s = await spec({ auth: "none" });
    expect(s.authHeaders).toEqual({});
    expect(s.configDocument()).toEqual({ mcpServers: { engine: { type: "http", url: s.url } } });
    await s.start();
    const res = await rawPost(s.url!, INITIALIZE);
    expect(res.status).toBe(200);
    await res.text();
  });

  it("a fixed port is used; a busy one rejects in the caller's await with EADDRINUSE and leaves no config behind", async () => {
    const free = await holdPort();
    await free.close();
    const s = await spec({ port: free.port });
    expect(portOf(s)).toBe(free.port);
    const err = await serveRegistry([runCheck], { name: "engine", ctx: makeTestCtx(), port: free.port }).catch(
      (e: NodeJS.ErrnoException) => e,
    );
    expect((err as NodeJS.ErrnoException).code).toBe("EADDRINUSE");
    expect((err as Error).message).toContain(`http://127.0.0.1:${free.port}/mcp`);
    expect(readdirSync(tmp)).toHaveLength(1); // only the first spec's directory
  });

  it("start() after stop() on a port taken meanwhile rejects with EADDRINUSE and removes the rewritten config again", async () => {
    const s = await spec();
    await s.start();
    await s.stop();
    const thief = await holdPort(portOf(s));
    try {
      await expect(s.start()).rejects.toMatchObject({ code: "EADDRINUSE" });
      expect(s.serving).toBe(false);
      expect(existsSync(s.configPath)).toBe(false);
    } finally {
      await thief.close();
    }
  });

  it("cliOptions: strictMcpConfig always; builtinTools: false only when asked", async () => {
    const s = await spec();
    expect(s.cliOptions()).toEqual({ mcpConfig: [s.configPath], strictMcpConfig: true });
    expect(s.cliOptions({ builtinTools: true })).toEqual(s.cliOptions());
    expect(s.cliOptions({ builtinTools: false })).toEqual({ ...s.cliOptions(), builtinTools: false });
    expect(() => s.cliOptions({ builtInTools: false } as never)).toThrow(
      optionsError(
        "McpServerSpec.cliOptions: unknown option 'builtInTools' (did you mean 'builtinTools'?). Accepted options: builtinTools",
      ),
    );
    expect(() => s.cliOptions({ builtinTools: "no" } as never)).toThrow(
      optionsError(`McpServerSpec.cliOptions: 'builtinTools' must be true or false, got string "no"`),
    );
    expect(() => s.cliOptions(null as never)).toThrow(
      optionsError("McpServerSpec.cliOptions: options must be an object { builtinTools }, got null"),
    );
  });

  it("codexOptions: the token travels in env, never in config", async () => {
    const s = await spec();
    const { config, env } = s.codexOptions();
    const token = s.authHeaders.Authorization!.slice("Bearer ".length);
    expect(config["mcp_servers.engine.url"]).toBe(s.url);
    expect(config["mcp_servers.engine.bearer_token_env_var"]).toBe(codexTokenEnvVar("engine"));
    expect(env).toEqual({ [codexTokenEnvVar("engine")]: token });
    expect(JSON.stringify(config)).not.toContain(token);
    expect(config["mcp_servers.engine.tools.run_check.approval_mode"]).toBe("approve");
  });
});

describe("a spec that is never stopped", () => {
  it("does not keep the process alive while not serving, and its config is removed when the process exits", async () => {
    const fixture = join(import.meta.dirname, "..", "fixtures", "serve", "forgets-to-stop.mjs");
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [fixture], { env: { ...process.env, TMPDIR: tmp }, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
      child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
      const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        if (code === 0) resolve(stdout);
        else reject(new Error(`fixture exited with ${code ?? signal}: ${stderr}`));
      });
    });
    const { configPath, url } = JSON.parse(out) as { configPath: string; url: string };
    expect(configPath.startsWith(tmp)).toBe(true);
    expect(existsSync(configPath)).toBe(false);
    expect(await portIsFree(Number(new URL(url).port))).toBe(true);
  });

  it("a config that cannot be written releases the port it had bound", async () => {
    const probe = await holdPort();
    await probe.close();
    const err = await serveRegistry([runCheck], {
      name: "engine",
      ctx: makeTestCtx(),
      port: probe.port,
      configPath: join(tmp, "no-such-dir", "x.json"),
    }).catch((e: NodeJS.ErrnoException) => e);
    expect((err as NodeJS.ErrnoException).code).toBe("ENOENT");
    expect(await portIsFree(probe.port)).toBe(true);
  });
});

describe("transport stdio", () => {
  const command = stdioCommand(join(import.meta.dirname, "helpers.ts"));

  it("without command throws at once with the explanation, writing nothing", async () => {
    const err = await serveRegistry([runCheck], { name: "engine", ctx: makeTestCtx(), transport: "stdio" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OptionsError);
    expect((err as OptionsError).option).toBe("command");
    expect((err as Error).message).toBe(
      'serveRegistry: transport "stdio" needs command. With stdio the CLI spawns the server itself, so the tools are rebuilt in a fresh process — this process\'s registry, closures and ctx do not cross that boundary. Pass command (e.g. command: stdioCommand("./dist/mcp-server.js")) naming an entry point that calls serveRegistryStdio(...), or use transport "http" (the default) to keep the tools in this process.',
    );
    expect(readdirSync(tmp)).toEqual([]);
    await expect(serveRegistry([runCheck], { name: "engine", ctx: makeTestCtx(), transport: "stdio", command: [] })).rejects.toThrow(
      /non-empty array/,
    );
    await expect(serveRegistry([runCheck], { name: "engine", ctx: makeTestCtx(), transport: "stdio", command, port: 1 })).rejects.toThrow(
      /port applies to transport "http" only/,
    );
  });

  it("writes {type: stdio, command, args, env}; url is null; stop removes, start rewrites", async () => {
    const s = await spec({ transport: "stdio", command, env: { NODE_PATH: "/srv/app" } });
    expect(s.transport).toBe("stdio");
    expect(s.url).toBeNull();
    expect(s.authHeaders).toEqual({});
    // The stdio child serves the module's read_result too (result budgets are on by default).
    expect(s.toolNames).toEqual(["mcp__engine__read_result", "mcp__engine__run_check"]);
    expect(mode(s.configPath)).toBe(0o600);
    const doc = {
      mcpServers: { engine: { type: "stdio", command: process.execPath, args: [command[1]], env: { NODE_PATH: "/srv/app" } } },
    };
    expect(JSON.parse(readFileSync(s.configPath, "utf8"))).toEqual(doc);
    expect(s.stdio).toEqual({ command: process.execPath, args: [command[1]], env: { NODE_PATH: "/srv/app" } });
    await s.start();
    await s.stop();
    expect(existsSync(s.configPath)).toBe(false);
    await s.start();
    expect(JSON.parse(readFileSync(s.configPath, "utf8"))).toEqual(doc);
    expect(s.codexOptions().config).toMatchObject({
      "mcp_servers.engine.command": process.execPath,
      "mcp_servers.engine.args": [command[1]],
    });
  });
});

describe("stdioCommand", () => {
  const here = join(import.meta.dirname, "helpers.ts");

  it("starts from process.execPath and resolves paths, file URLs and module specifiers to absolute files", () => {
    expect(stdioCommand(here)).toEqual([process.execPath, here]);
    expect(stdioCommand(`./${relative(process.cwd(), here)}`)).toEqual([process.execPath, here]);
    expect(stdioCommand(pathToFileURL(here))).toEqual([process.execPath, here]);
    expect(stdioCommand(pathToFileURL(here).href)).toEqual([process.execPath, here]);
    expect(stdioCommand("./helpers.ts", { cwd: import.meta.dirname, nodeArgs: ["--enable-source-maps"] })).toEqual([
      process.execPath,
      "--enable-source-maps",
      here,
    ]);
    const everything = stdioCommand("@modelcontextprotocol/server-everything");
    expect(everything[0]).toBe(process.execPath);
    expect(everything[1]).toMatch(/node_modules\/@modelcontextprotocol\/server-everything\/.*\.js$/);
    expect(Object.isFrozen(everything)).toBe(true);
    expect(stdioCommand("@modelcontextprotocol/sdk/server/stdio.js")[1]).toMatch(
      /node_modules\/@modelcontextprotocol\/sdk(-latest)?\/dist\/.*\/server\/stdio\.js$/,
    );
  });

  it("checks its options by one declared spec: an unknown key, a wrong-kind value and null options are refused by name", () => {
    expect(() => stdioCommand(here, { cwdd: "/tmp" } as never)).toThrow(
      optionsError("stdioCommand: unknown option 'cwdd'. Accepted options: cwd, nodeArgs"),
    );
    expect(() => stdioCommand(here, { nodeArgs: "--inspect" } as never)).toThrow(
      optionsError(`stdioCommand: 'nodeArgs' must be an array of non-empty strings, got string "--inspect"`),
    );
    expect(() => stdioCommand(here, { cwd: 3 } as never)).toThrow(
      optionsError("stdioCommand: 'cwd' must be a directory path, got number 3"),
    );
    expect(() => stdioCommand(here, null as never)).toThrow(
      optionsError("stdioCommand: options must be an object { cwd, nodeArgs }, got null"),
    );
  });

  it("refuses an entry that names nothing, rather than writing a config the CLI fails on later", () => {
    expect(() => stdioCommand("./no-such-entry.js")).toThrow(OptionsError);
    expect(() => stdioCommand("./no-such-entry.js")).toThrow(/names no file/);
    expect(() => stdioCommand("no-such-package-agentkit/x")).toThrow(/cannot resolve 'no-such-package-agentkit\/x'/);
  });
});

describe("serveRegistryStdio on in-process streams", () => {
  /** Drive a stdio server with raw newline-delimited JSON-RPC. */
  function wire(): { stdin: PassThrough; stdout: PassThrough; send: (m: object) => void; next: () => Promise<Record<string, unknown>> } {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const lines: Array<Record<string, unknown>> = [];
    const waiters: Array<(m: Record<string, unknown>) => void> = [];
    let buf = "";
    stdout.on("data", (b: Buffer) => {
      buf += b.toString();
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        const m = JSON.parse(buf.slice(0, i)) as Record<string, unknown>;
        buf = buf.slice(i + 1);
        const w = waiters.shift();
        if (w) w(m);
        else lines.push(m);
      }
    });
    return {
      stdin,
      stdout,
      send: (m) => stdin.write(`${JSON.stringify(m)}\n`),
      next: () => (lines.length ? Promise.resolve(lines.shift()!) : new Promise((r) => waiters.push(r))),
    };
  }

  it("serves the same contract, writes no config, and resolves when stdin ends (cancelling calls in flight)", async () => {
    let inFlight: RunContext | undefined;
    const waits = tool({ description: "Waits.", input: { type: "object", properties: {} } }, function waits(_i, c: RunContext) {
      inFlight = c;
      return new Promise(() => {});
    });
    const w = wire();
    const done = serveRegistryStdio([runCheck, waits], { name: "engine", ctx: makeTestCtx(), stdin: w.stdin, stdout: w.stdout });
    w.send(INITIALIZE);
    expect(await w.next()).toMatchObject({ id: 1, result: { serverInfo: { name: "engine" } } });
    w.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    w.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "run_check", arguments: { name: "x", extra: 1 } } });
    expect(await w.next()).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: {
        content: [{ type: "text", text: "tool 'run_check' call rejected: unexpected argument(s) ['extra']. Accepted arguments: ['name']" }],
        isError: true,
      },
    });
    w.send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "waits", arguments: {} } });
    await until(() => inFlight !== undefined, "the waiting tool to start");
    expect(inFlight!.cancelled).toBe(false);
    w.stdin.end();
    await done;
    expect(inFlight!.cancelled).toBe(true);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("refuses a bad server name before serving", async () => {
    await expect(
      serveRegistryStdio([runCheck], { name: "bad name", ctx: makeTestCtx(), stdin: new PassThrough(), stdout: new PassThrough() }),
    ).rejects.toThrow(/invalid MCP server name "bad name"/);
  });
});
