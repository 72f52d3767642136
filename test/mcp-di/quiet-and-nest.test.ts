/**
 * @module test/mcp-di/quiet-and-nest.test
 * Issue #30 points 5 and 6, with real remotes (server-everything over stdio)
 * and a real loopback listener: a remote's dropped-prompt warnings appear only
 * when something injects its prompts, and then on the module's `LOGGER`;
 * `imports: [OtherModule]` composes providers and tools as Nest's modules do
 * (diamonds once; cycles, non-modules and clashing definitions refused);
 * `app.get(Token)` resolves from the module's container.
 */
import "reflect-metadata";
import { container, inject, injectable } from "tsyringe";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LOGGER, setLogger, Tool, ToolRegistry, type Logger, type PromptTemplate, BootstrapError } from "../../src/index.js";
import { GLOBAL_LOGGER } from "../../src/util/logger.js";
import { OptionsError } from "../../src/errors/index.js";
import { bootstrap, InjectMcpPrompts, InjectMcpTools, McpServer, remote, StdioServer, type McpApp } from "../../src/mcp/index.js";
import { mcpToolsToken } from "../../src/mcp/di/index.js";
import { EVERYTHING, NODE } from "../mcp-client/support.js";

const everything = (): StdioServer => new StdioServer({ command: NODE, args: [EVERYTHING, "stdio"] });

/** A logger that records every line as `level: text`. */
function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (m: string) => void lines.push(`${level}: ${m}`);
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

const apps: McpApp[] = [];
let global: ReturnType<typeof recordingLogger>;
let restore: Logger;
beforeEach(() => {
  global = recordingLogger();
  restore = setLogger(global);
});
afterEach(async () => {
  for (const app of apps.splice(0)) await app.stop();
  setLogger(restore);
});
async function boot(module: abstract new (...args: never[]) => unknown, serve = false): Promise<McpApp> {
  const app = await bootstrap(module, { container: container.createChildContainer(), serve });
  apps.push(app);
  return app;
}
const warnings = (lines: readonly string[]): string[] => lines.filter((l) => l.startsWith("warn: "));

@injectable()
class PromptReader {
  constructor(@InjectMcpPrompts("ev") readonly prompts: Record<string, PromptTemplate>) {}
}

describe("quiet by default: a remote's dropped prompts warn only when its prompts are injected", () => {
  @McpServer({ name: "quiet", tools: [], remotes: [remote("ev", everything())] })
  class Quiet {}

  @McpServer({ name: "asks", tools: [], providers: [PromptReader], remotes: [remote("ev", everything())] })
  class Asks {}

  it("nothing injects the prompts: no warning at all", async () => {
    await boot(Quiet);
    expect(warnings(global.lines)).toEqual([]);
  });

  it("a provider injects them: the three drop warnings, once, when it is built", async () => {
    const app = await boot(Asks);
    expect(warnings(global.lines)).toEqual([]);
    const reader = app.get(PromptReader);
    expect(Object.keys(reader.prompts)).toEqual(["simple-prompt"]);
    app.get(PromptReader);
    expect(warnings(global.lines)).toEqual([
      expect.stringContaining("mcpPrompts: dropping 'args-prompt'"),
      expect.stringContaining("mcpPrompts: dropping 'completable-prompt'"),
      expect.stringContaining("mcpPrompts: dropping 'resource-prompt'"),
    ]);
  });

  it("a LOGGER provider receives the package's warnings instead of the global logger; LOGGER defaults to the global one", async () => {
    const mine = recordingLogger();
    @McpServer({
      name: "logged",
      tools: [],
      providers: [PromptReader, { provide: LOGGER, useValue: mine }],
      remotes: [remote("ev", everything())],
    })
    class Logged {}
    const app = await boot(Logged);
    app.get(PromptReader);
    expect(warnings(mine.lines)).toHaveLength(3);
    expect(warnings(global.lines)).toEqual([]);
    expect(app.get(LOGGER)).toBe(mine);

    const quiet = await boot(Quiet);
    expect(quiet.get(LOGGER)).toBe(GLOBAL_LOGGER);
    quiet.get<Logger>(LOGGER).warn("through the global logger");
    expect(global.lines).toContain("warn: through the global logger");
  });

  it("a class injects LOGGER like any provider", async () => {
    @injectable()
    class Chatty {
      constructor(@inject(LOGGER) readonly log: Logger) {}
    }
    const mine = recordingLogger();
    @McpServer({ name: "chatty", tools: [], providers: [Chatty, { provide: LOGGER, useValue: mine }] })
    class ChattyModule {}
    const app = await boot(ChattyModule);
    app.get(Chatty).log.info("hello");
    expect(mine.lines).toEqual(["info: hello"]);
  });
});

@injectable()
class Counter {
  n = 0;
}

@Tool({ description: "Count once.", input: { type: "object", properties: {} }, sideEffecting: false })
class CountTool {
  constructor(private readonly counter: Counter) {}
  run(): string {
    return String(++this.counter.n);
  }
}

@Tool({ name: "peek", description: "Read the count.", input: { type: "object", properties: {} }, sideEffecting: false })
class PeekTool {
  constructor(private readonly counter: Counter) {}
  run(): string {
    return String(this.counter.n);
  }
}

@McpServer({ name: "counting", tools: [CountTool], providers: [Counter] })
class CountingModule {}

describe("imports: [OtherModule]", () => {
  it("an imported module's providers and tools join the importer's, one singleton shared", async () => {
    @McpServer({ name: "app", imports: [CountingModule], tools: [PeekTool] })
    class AppModule {}
    const app = await boot(AppModule, true);
    expect(app.registry.names().sort()).toEqual(["count_tool", "peek"]);
    expect(app.spec!.name).toBe("app");
    const ctx = app.ctx;
    await app.registry.get("count_tool")!.run({}, ctx);
    await app.registry.get("count_tool")!.run({}, ctx);
    expect(await app.registry.get("peek")!.run({}, ctx)).toBe("2");
    expect(app.get(Counter).n).toBe(2);
  });

  it("a module reached along two paths (a diamond) counts once", async () => {
    @McpServer({ name: "left", imports: [CountingModule], tools: [] })
    class Left {}
    @McpServer({ name: "right", imports: [CountingModule], tools: [PeekTool] })
    class Right {}
    @McpServer({ name: "top", imports: [Left, Right], tools: [] })
    class Top {}
    const app = await boot(Top);
    expect(app.registry.names().sort()).toEqual(["count_tool", "peek"]);
  });

  it("a cycle is refused, naming it", async () => {
    @McpServer({ name: "a", imports: [() => CycleB], tools: [] })
    class CycleA {}
    @McpServer({ name: "b", imports: [CycleA], tools: [] })
    class CycleB {}
    const err = await bootstrap(CycleA, { serve: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BootstrapError);
    expect((err as BootstrapError).step).toBe("imports");
    expect((err as Error).message).toBe(
      "bootstrap(CycleA): its imports form a cycle: CycleA -> CycleB -> CycleA. A module cannot import itself, directly or through others: move what both need into a third module that both import",
    );
    @McpServer({ name: "self", imports: [() => SelfImport], tools: [] })
    class SelfImport {}
    await expect(bootstrap(SelfImport, { serve: false })).rejects.toThrow("its imports form a cycle: SelfImport -> SelfImport.");
  });

  it("an import that is not an @McpServer module is refused when decorated (not a function) or booted (not a module)", async () => {
    class Plain {}
    expect(() => McpServer({ name: "bad", imports: [42 as never], tools: [] })(class Bad {})).toThrow(
      "@McpServer on Bad: 'imports' must be an array of @McpServer module classes (or () => Module for a module defined later), got imports[0]: number",
    );
    @McpServer({ name: "wrong", imports: [Plain], tools: [] })
    class Wrong {}
    await expect(bootstrap(Wrong, { serve: false })).rejects.toThrow(
      "bootstrap(Wrong): Wrong's imports[0] (Plain) is not an @McpServer module",
    );
  });

  it("two modules defining one token differently are refused naming both; the same definition twice is fine", async () => {
    const TOKEN = Symbol("settings");
    @McpServer({ name: "one", tools: [], providers: [{ provide: TOKEN, useValue: { env: "staging" } }] })
    class One {}
    @McpServer({ name: "two", tools: [], providers: [{ provide: TOKEN, useValue: { env: "prod" } }] })
    class Two {}
    @McpServer({ name: "both", imports: [One, Two], tools: [] })
    class Both {}
    await expect(bootstrap(Both, { serve: false })).rejects.toThrow(
      "bootstrap(Both): provider settings is defined differently by One and Two; keep one definition (in a module both import)",
    );
    @McpServer({ name: "same", imports: [CountingModule], tools: [], providers: [Counter] })
    class Same {}
    const app = await boot(Same);
    expect(app.registry.names()).toEqual(["count_tool"]);
  });

  it("two modules serving one tool name are refused by the name rule", async () => {
    @Tool({ name: "count_tool", description: "Another.", input: { type: "object", properties: {} } })
    class OtherCount {
      run(): string {
        return "other";
      }
    }
    @McpServer({ name: "clash", imports: [CountingModule], tools: [OtherCount] })
    class Clash {}
    await expect(bootstrap(Clash, { serve: false })).rejects.toThrow("tools 'count_tool' and 'count_tool' are both served as 'count_tool'");
  });

  it("an imported module's remotes are opened and injected like the importer's own", async () => {
    @injectable()
    class UsesTools {
      constructor(@InjectMcpTools("ev") readonly tools: { name: string }[]) {}
    }
    @McpServer({ name: "remotes", tools: [], remotes: [remote("ev", everything(), { prefix: "ev_" })] })
    class RemoteModule {}
    @McpServer({ name: "root", imports: [RemoteModule], tools: [], providers: [UsesTools] })
    class Root {}
    const app = await boot(Root);
    expect(app.get(UsesTools).tools.map((t) => t.name)).toContain("ev_echo");
    expect(app.get(mcpToolsToken("ev"))).toBe(app.get(UsesTools).tools);
    expect(warnings(global.lines)).toEqual([]);
  });
});

describe("app.get(Token)", () => {
  it("resolves providers and the package's own tokens; an unknown token is a clear error", async () => {
    const app = await boot(CountingModule);
    expect(app.get(Counter)).toBe(app.get(Counter));
    expect(app.get(ToolRegistry)).toBe(app.registry);
    class NotProvided {}
    const err = (() => {
      try {
        app.get(NotProvided);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(OptionsError);
    expect((err as Error).message).toBe(
      "McpApp.get(NotProvided): NotProvided is not provided in CountingModule's container. Add it to @McpServer({ providers: [...] }) of CountingModule or of a module it imports, or register it in the container passed to bootstrap(CountingModule, { container })",
    );
    expect(() => app.get(Symbol("nope"))).toThrow("McpApp.get(nope): nope is not provided");
  });
});
