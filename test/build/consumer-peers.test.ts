/**
 * @module test/build/consumer-peers.test
 * The published declarations for a user who installed only the peers of the
 * parts they use, under TypeScript 5.9, 6.0 and 7.x with `skipLibCheck:
 * false` (the README's tsconfig checks every `.d.ts` the package brings). One
 * scratch project per combination: the package (package.json and dist/)
 * copied in, every other installed package linked except the optional peers
 * the combination leaves out (and their type packages). A control import of a
 * left-out peer must fail with TS2307 in the same project, so a clean compile
 * is not vacuous. Builds first only when dist/ is missing.
 */
import { readFileSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildIfMissing } from "../helpers/build-if-missing.js";
import { runNode, runProgram, type NodeRun } from "../helpers/procs.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PACKAGE = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { peerDependencies: Record<string, string> };
/** What a user may leave out: every optional peer, the type packages of two of them, and the SDKs the repository has only for its own tests. */
const LEAVABLE = new Set([...Object.keys(PACKAGE.peerDependencies), "@types/express", "@types/pg", "@modelcontextprotocol/sdk", "@modelcontextprotocol/sdk-latest", "@modelcontextprotocol/node"]);

/** The compilers, as test/build/consumer-compilers.test.ts runs them. */
const COMPILERS: Record<string, (args: string[], cwd: string) => Promise<NodeRun>> = {
  "5.9": (args, cwd) => runNode([join(ROOT, "node_modules/typescript/bin/tsc"), ...args], { cwd, ms: 300_000 }),
  "6.0": (args, cwd) => runNode([join(ROOT, "node_modules/typescript-6/bin/tsc"), ...args], { cwd, ms: 300_000 }),
  "7.x": (args, cwd) => runProgram(join(ROOT, `node_modules/@typescript/typescript-${process.platform}-${process.arch}/lib/tsc`), args, { cwd, ms: 300_000 }),
};

/** A user's combination: the peers installed, a program using the parts they serve, and a left-out peer the control imports. */
interface Combination {
  readonly peers: readonly string[];
  readonly program: string;
  readonly leftOut: string;
}

const COMBINATIONS: Record<string, Combination> = {
  "OpenAI only (arc-agentkit/models with openai, no @anthropic-ai/sdk)": {
    peers: ["openai"],
    program: `import { Agent, ReActCognition } from "arc-agentkit";\nimport { OpenAILLM, type OpenAILLMOptions } from "arc-agentkit/models";\nexport const parts = [Agent, ReActCognition, OpenAILLM];\nexport type O = OpenAILLMOptions;\n`,
    leftOut: "@anthropic-ai/sdk",
  },
  "Anthropic only (arc-agentkit/models with @anthropic-ai/sdk, no openai)": {
    peers: ["@anthropic-ai/sdk"],
    program: `import { AnthropicLLM, type AnthropicRequestBody } from "arc-agentkit/models";\nexport const parts = [AnthropicLLM];\nexport type B = AnthropicRequestBody;\n`,
    leftOut: "openai",
  },
  "no peers (the core)": {
    peers: [],
    program: `import { Agent, tool, ToolRegistry } from "arc-agentkit";\nexport const parts = [Agent, tool, ToolRegistry];\n`,
    leftOut: "@modelcontextprotocol/client",
  },
  "client only (arc-agentkit/mcp's MCPClient and mcpTools with @modelcontextprotocol/client, no server)": {
    peers: ["@modelcontextprotocol/client"],
    program: `import { MCPClient, mcpTools, StdioServer, type McpTool, type MCPClientOptions } from "arc-agentkit/mcp";\nexport const parts = [MCPClient, mcpTools, StdioServer];\nexport type T = [McpTool, MCPClientOptions];\n`,
    leftOut: "@modelcontextprotocol/server",
  },
  "server only (arc-agentkit/mcp's @McpServer and serveRegistry with @modelcontextprotocol/server, no client)": {
    peers: ["@modelcontextprotocol/server"],
    program: `import { McpServer, serveRegistry, serveRegistryStdio, type McpServerSpec, type ServeRegistryOptions } from "arc-agentkit/mcp";\nexport const parts = [McpServer, serveRegistry, serveRegistryStdio];\nexport type T = [McpServerSpec, ServeRegistryOptions];\n`,
    leftOut: "@modelcontextprotocol/client",
  },
  "express only (arc-agentkit/express's mcpRouter with express, @modelcontextprotocol/express and the server, no client)": {
    peers: ["express", "@types/express", "@modelcontextprotocol/express", "@modelcontextprotocol/server"],
    program: `import { mcpRouter, type McpRouter, type McpRouterOptions } from "arc-agentkit/express";\nexport const parts = [mcpRouter];\nexport type T = [McpRouter, McpRouterOptions];\n`,
    leftOut: "@modelcontextprotocol/client",
  },
  // connectModule returns an MCPClient, whose declarations name the MCP SDK's types.
  "the testing kit (arc-agentkit/testing with the MCP client and server, no model SDK)": {
    peers: ["@modelcontextprotocol/client", "@modelcontextprotocol/server"],
    program: `import { connectModule, FakeLLM, makeTestCtx, type ConnectModuleOptions } from "arc-agentkit/testing";\nexport const parts = [connectModule, FakeLLM, makeTestCtx];\nexport type O = ConnectModuleOptions;\n`,
    leftOut: "openai",
  },
};

const scratch: string[] = [];
beforeAll(() => buildIfMissing(ROOT, ["dist/index.d.ts", "dist/models/index.d.ts", "dist/mcp/index.d.ts", "dist/express/index.d.ts", "dist/testing/index.d.ts"]), 300_000);
afterAll(async () => {
  // Links inside are removed as links; their targets are untouched.
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

/** Link `from/name` into `to/name` unless it is a peer the combination leaves out. */
async function linkUnlessLeftOut(from: string, to: string, name: string, peers: readonly string[]): Promise<void> {
  if (LEAVABLE.has(name) && !peers.includes(name)) return;
  await symlink(join(from, name.split("/").pop()!), join(to, name.split("/").pop()!), "dir");
}

/** The scratch project of `c`: the package copied, the installed packages linked but the left-out peers, the program and the control. */
async function project(c: Combination): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "agentkit-peers-"));
  scratch.push(dir);
  const modules = join(dir, "node_modules");
  await mkdir(join(modules, "arc-agentkit"), { recursive: true });
  await cp(join(ROOT, "package.json"), join(modules, "arc-agentkit/package.json"));
  await cp(join(ROOT, "dist"), join(modules, "arc-agentkit/dist"), { recursive: true, filter: (src) => !src.endsWith(".map") });
  const installed = join(ROOT, "node_modules");
  for (const name of await readdir(installed)) {
    if (name === "arc-agentkit" || name.startsWith(".")) continue;
    if (!name.startsWith("@")) {
      await linkUnlessLeftOut(installed, modules, name, c.peers);
      continue;
    }
    await mkdir(join(modules, name));
    for (const sub of await readdir(join(installed, name))) await linkUnlessLeftOut(join(installed, name), join(modules, name), `${name}/${sub}`, c.peers);
  }
  const options = { target: "ES2022", lib: ["ES2022", "ESNext.Disposable"], module: "NodeNext", moduleResolution: "NodeNext", strict: true, skipLibCheck: false, preserveSymlinks: true, noEmit: true, types: ["node"], experimentalDecorators: true, emitDecoratorMetadata: true };
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "agentkit-peers", private: true, type: "module" }));
  await writeFile(join(dir, "program.ts"), c.program);
  await writeFile(join(dir, "control.ts"), `export type Left = typeof import("${c.leftOut}");\n`);
  await writeFile(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: options, files: ["program.ts"] }));
  await writeFile(join(dir, "tsconfig.control.json"), JSON.stringify({ compilerOptions: options, files: ["control.ts"] }));
  return dir;
}

/** tsc's diagnostics (its stdout), one a line, each cut to its first 200 characters. */
const diagnostics = (r: NodeRun): string[] => r.stdout.split("\n").filter((l) => /error TS\d+/.test(l)).map((l) => l.slice(0, 200));

describe("a user who installed only the peers of the parts they use compiles with skipLibCheck: false", () => {
  for (const [name, c] of Object.entries(COMBINATIONS)) {
    it(`${name}: TypeScript 5.9, 6.0 and 7.x`, async () => {
      const dir = await project(c);
      const control = await COMPILERS["7.x"]!(["-p", "tsconfig.control.json"], dir);
      expect(control.stdout).toContain(`error TS2307: Cannot find module '${c.leftOut}'`);
      for (const [version, tsc] of Object.entries(COMPILERS)) {
        const r = await tsc(["-p", "tsconfig.json"], dir);
        expect(diagnostics(r), `TypeScript ${version}`).toEqual([]);
        expect(r.code, `TypeScript ${version}`).toBe(0);
      }
    }, 900_000);
  }
});
