/**
 * @module bin/init-files
 * The files `agentkit init` writes: a project that builds (`tsc`, with the
 * tsconfig nest-cli-free.md documents), tests (vitest 4.1 on vite 8, which
 * emits decorator metadata) and serves (`agentkit serve`) as generated. The
 * versions come from this package's own package.json: the peers' ranges, and
 * the exact tools this package is built and tested with.
 */

/** What the project's package.json pins, read from this package's package.json (and the Node that runs `init`). */
export interface InitVersions {
  /** This package's version (the project depends on `^` it). */
  readonly agentkit: string;
  /** The project's dependency spec for this package when not `^<agentkit>` (`agentkit init --package`: a `file:` path). */
  readonly agentkitSpec?: string;
  readonly peerDependencies: Readonly<Record<string, string>>;
  /**
   * This package's dev tools; `typescript-7` (an npm alias) gives the project's TypeScript, the fastest of the three
   * this package is tested with.
   */
  readonly devDependencies: Readonly<Record<string, string>>;
  /** The major version of the Node that runs `init`: the project's `@types/node` is `^<major>.0.0`. */
  readonly nodeMajor: number;
}

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    lib: ["ES2022", "ESNext.Disposable", "DOM"],
    types: ["node"],
    module: "NodeNext",
    moduleResolution: "NodeNext",
    rootDir: "src",
    outDir: "dist",
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    strict: true,
    skipLibCheck: false,
  },
  include: ["src"],
};

function packageJson(name: string, v: InitVersions): string {
  const pick = (from: Readonly<Record<string, string>>, names: string[]) => Object.fromEntries(names.map((n) => [n, from[n]!]));
  return `${JSON.stringify(
    {
      name,
      version: "0.1.0",
      private: true,
      type: "module",
      scripts: {
        build: "tsc -p tsconfig.json",
        test: "vitest run src",
        serve: "agentkit serve dist/greeter.module.js",
        watch: "tsc -p tsconfig.json --watch --preserveWatchOutput",
        dev: "agentkit serve dist/greeter.module.js --watch",
      },
      // The module is served by `agentkit serve` and tested through an MCPClient: the MCP server and client, no express.
      dependencies: {
        "arc-agentkit": v.agentkitSpec ?? `^${v.agentkit}`,
        ...pick(v.peerDependencies, ["@modelcontextprotocol/client", "@modelcontextprotocol/server"]),
      },
      devDependencies: {
        "@types/node": `^${v.nodeMajor}.0.0`,
        typescript: v.devDependencies["typescript-7"]!.replace(/^npm:typescript@/, ""),
        ...pick(v.devDependencies, ["vite", "vitest"]),
      },
    },
    null,
    2,
  )}\n`;
}

const TOOL = `import { Tool } from "arc-agentkit";

/** A service the tool gets through its constructor (one per module: it is in the module's providers). */
export class Greetings {
  count = 0;
  greet(name: string): string {
    this.count++;
    return \`Hello, \${name}! (greeting \${this.count})\`;
  }
}

/** One tool: its arguments are checked against \`input\` (a JSON Schema, or a class-validator class) before \`run\`. */
@Tool({
  description: "Greet a person by name.",
  input: { type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false },
  sideEffecting: false,
})
export class Greet {
  constructor(private readonly greetings: Greetings) {}
  run(input: { name: string }): string {
    return this.greetings.greet(input.name);
  }
}
`;

const MODULE = `import { McpServer } from "arc-agentkit/mcp";
import { Greet, Greetings } from "./greet.tool.js";

/** The module \`npm run serve\` (agentkit serve) serves to Claude Code or Codex: its tools as mcp__greeter__<tool>. */
@McpServer({ name: "greeter", tools: [Greet], providers: [Greetings] })
export class GreeterModule {}
`;

const TEST = `import { describe, expect, it } from "vitest";
import { toolResultText } from "arc-agentkit/mcp";
import { connectModule } from "arc-agentkit/testing";
import { GreeterModule } from "./greeter.module.js";

describe("GreeterModule", () => {
  it("serves greet over MCP, whose service is one per module", async () => {
    // A client of the module served in memory (no port, no process); closing it at the end of this block stops the module.
    await using client = await connectModule(GreeterModule);
    const greet = async (args: Record<string, unknown>) => toolResultText(await client.callTool("greet", args));
    // read_result is the module's own: it pages through a result over the 20,000-character budget (results: false drops it).
    expect((await client.listTools()).map((t) => t.name)).toEqual(["greet", "read_result"]);
    expect(await greet({ name: "Ada" })).toBe("Hello, Ada! (greeting 1)");
    expect(await greet({ name: "Grace" })).toBe("Hello, Grace! (greeting 2)");
    expect(await greet({ name: "Ada", loud: true })).toMatch(/^ERROR: .*unexpected argument\\(s\\) \\['loud'\\]/);
  }, 30_000); // the first connection loads the MCP SDK: on a busy machine that alone can pass vitest's default 5 s
});
`;

const README = (name: string) => `# ${name}

An MCP server built with [arc-agentkit](https://www.npmjs.com/package/arc-agentkit): one \`@Tool\` (\`src/greet.tool.ts\`) in one \`@McpServer\` module (\`src/greeter.module.ts\`).

- \`npm install\` — install (Node ^20.19.0 || ^22.13.0 || >=24).
- \`npm run build\` — compile with tsc into \`dist/\` (decorator metadata on: see tsconfig.json).
- \`npm test\` — run \`src/*.test.ts\` with vitest (vite 8 emits the decorator metadata tsyringe injects by).
- \`npm run serve\` — serve the module on 127.0.0.1 and print the \`claude --mcp-config …\` line to paste; Ctrl-C stops it.
- \`npm run watch\` and \`npm run dev\`, side by side (after one \`npm run build\`) — recompile on each change, and serve each rebuild on the same URL and config path.
`;

const GITIGNORE = "node_modules/\ndist/\n";

/** The project's files, path (relative to its directory) to content. */
export function initFiles(name: string, versions: InitVersions): ReadonlyMap<string, string> {
  return new Map([
    ["package.json", packageJson(name, versions)],
    ["tsconfig.json", `${JSON.stringify(TSCONFIG, null, 2)}\n`],
    ["src/greet.tool.ts", TOOL],
    ["src/greeter.module.ts", MODULE],
    ["src/greeter.test.ts", TEST],
    ["README.md", README(name)],
    [".gitignore", GITIGNORE],
  ]);
}
