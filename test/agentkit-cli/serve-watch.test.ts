/**
 * @module test/agentkit-cli/serve-watch.test
 * `agentkit serve --watch` on a real module file in a temp directory: a
 * change to a file the module imports (what `tsc --watch` does) restarts the
 * module in place — same URL, same config path, the printed line unchanged —
 * and a real client that re-reads the config reconnects and sees the new
 * build; a build that does not load keeps the old one serving.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCPClient, StreamableHttpServer } from "../../src/mcp/index.js";
import { until } from "../helpers/wait.js";
import { ROOT, ServeProcess, requireBuild, runAgentkit } from "./agentkit-process.js";

beforeAll(requireBuild);

const dist = (p: string): string => pathToFileURL(join(ROOT, "dist", p)).href;
let dir: string;

/**
 * The module file: one @McpServer class serving what ./tools.mjs exports
 * (results: false: the tool counts here are the module's own, without the read_result budgets add).
 */
const MODULE = `import { McpServer } from ${JSON.stringify(dist("mcp/index.js"))};
import { tools } from "./tools.mjs";
export class Watched {}
McpServer({ name: "watched", tools, results: false })(Watched);
`;

/** ./tools.mjs, answering `version` from `greet`, plus the named extra tools. */
function toolsFile(version: string, extra: string[] = []): string {
  const make = (name: string, text: string) =>
    `tool({ name: ${JSON.stringify(name)}, description: "Says ${name}.", input: { type: "object", properties: {} }, sideEffecting: false }, () => ${JSON.stringify(text)})`;
  return `import { tool } from ${JSON.stringify(dist("index.js"))};
export const tools = [${[make("greet", version), ...extra.map((n) => make(n, n))].join(", ")}];
`;
}

/** The server entry of the config file: its URL and headers (the token). */
function configEntry(path: string): { url: string; headers: Record<string, string> } {
  return (JSON.parse(readFileSync(path, "utf8")) as { mcpServers: Record<string, { url: string; headers: Record<string, string> }> })
    .mcpServers["watched"]!;
}

async function callGreet(entry: { url: string; headers: Record<string, string> }): Promise<{ text: string; tools: string[] }> {
  await using client = await MCPClient.start(new StreamableHttpServer({ url: entry.url, headers: entry.headers }));
  const r = await client.callTool("greet", {});
  return { text: (r.content as { text: string }[])[0]!.text, tools: (await client.listTools()).map((t) => t.name) };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "agentkit-watch-"));
  writeFileSync(join(dir, "tools.mjs"), toolsFile("v1"));
  writeFileSync(join(dir, "module.mjs"), MODULE);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("agentkit serve --watch", () => {
  it("restarts in place after a rebuild: same URL and config path, new build served, a failed build keeps the old one", async () => {
    await using serve = await ServeProcess.start([join(dir, "module.mjs"), "--watch"]);
    expect(serve.stdout).toContain(`Watching ${dir} for changes`);
    const printed = serve.stdout;
    const configPath = serve.configPath;
    const first = configEntry(configPath);
    expect(first.url).toBe(serve.url);
    expect(await callGreet(first)).toEqual({ text: "v1", tools: ["greet"] });

    // The rebuild changes a file the module imports, and adds a tool.
    writeFileSync(join(dir, "tools.mjs"), toolsFile("v2", ["bye"]));
    await until(
      () => /restarted 'watched' with 2 tool\(s\)/.test(serve.stderr),
      () => `the restart with 2 tools on stderr (stderr: ${serve.stderr})`,
      20_000,
    );
    expect(serve.stdout).toBe(printed);
    const second = configEntry(configPath);
    expect(second.url).toBe(first.url);
    expect(second.headers.Authorization).not.toBe(first.headers.Authorization);
    expect(await callGreet(second)).toEqual({ text: "v2", tools: ["greet", "bye"] });
    // The old token died with the old build.
    await expect(callGreet(first)).rejects.toThrow(/401|Unauthorized/);

    // A build that does not load: the old one keeps serving.
    writeFileSync(join(dir, "tools.mjs"), "export const tools = [;\n");
    await until(
      () => /could not be loaded/.test(serve.stderr),
      () => `the failed rebuild on stderr (stderr: ${serve.stderr})`,
      20_000,
    );
    expect(serve.stderr).toMatch(
      /the rebuild could not be loaded — agentkit serve: cannot load module file '.*module\.mjs': SyntaxError: .*; still serving the previous build/,
    );
    expect(await callGreet(configEntry(configPath))).toEqual({ text: "v2", tools: ["greet", "bye"] });

    const exit = await serve.stop("SIGINT");
    expect(exit.code).toBe(0);
    expect(existsSync(configPath)).toBe(false);
  }, 90_000);

  it("is refused with --transport stdio, naming why", async () => {
    const r = await runAgentkit(["serve", join(dir, "module.mjs"), "--watch", "--transport", "stdio"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("agentkit serve: --watch is for --transport http");
  });
});
