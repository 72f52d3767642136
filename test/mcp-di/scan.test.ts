/**
 * @module test/mcp-di/scan.test
 * bootstrap's scan step: everything is checked before anything is built,
 * opened or bound, and each refusal is a BootstrapError naming what and the
 * fix — names by serveRegistry's own rule, request scope that cannot hold
 * (an Asker built once that would keep a call's context), bad options.
 */
import "reflect-metadata";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { container, inject, injectable } from "tsyringe";
import { afterAll, describe, expect, it } from "vitest";
import { DefinitionError, OptionsError, RunContext, Tool, tool, type Asker, BootstrapError } from "../../src/index.js";
import { McpServer, StdioServer, bootstrap, remote, type ModuleClass } from "../../src/mcp/index.js";
import { checkServerName } from "../../src/wire/names.js";
import { optionsError } from "../core/helpers.js";

const dir = mkdtempSync(join(tmpdir(), "agentkit-di-scan-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A remote whose process leaves `marker` behind the moment it starts (then exits: it is no MCP server). */
function markingRemote(marker: string) {
  return remote(
    "marker",
    new StdioServer({ command: process.execPath, args: ["-e", `require("fs").writeFileSync(${JSON.stringify(marker)}, "started")`] }),
  );
}

async function refused(module: ModuleClass, options: Parameters<typeof bootstrap>[1] = {}): Promise<unknown> {
  return bootstrap(module, { container: container.createChildContainer(), ...options }).then(
    () => new Error("bootstrap did not refuse"),
    (e: unknown) => e,
  );
}

async function refusal(module: ModuleClass, options: Parameters<typeof bootstrap>[1] = {}): Promise<BootstrapError> {
  const err = await refused(module, options);
  expect(err).toBeInstanceOf(BootstrapError);
  return err as BootstrapError;
}

/** Bootstrap's options refused: one `OptionsError`, where `bootstrap(Module)`. */
async function optionRefusal(module: ModuleClass, options: Parameters<typeof bootstrap>[1]): Promise<OptionsError> {
  const err = await refused(module, options);
  expect(err).toBeInstanceOf(OptionsError);
  expect(err).toMatchObject({ code: "invalid_option", where: `bootstrap(${module.name})` });
  return err as OptionsError;
}

const NOBODY = Symbol.for("test:scan:nobody");
@Tool({ description: "Needs a token nobody provides." })
class NeedsNobody {
  constructor(@inject(NOBODY) readonly dep: string) {}
  run(): string {
    return this.dep;
  }
}

describe("scan before build", () => {
  it("a tool that cannot be built is refused before any remote is opened", async () => {
    const marker = join(dir, "not-started");
    @McpServer({ name: "early", tools: [NeedsNobody], remotes: [markingRemote(marker)] })
    class EarlyModule {}
    const err = await refusal(EarlyModule);
    expect([err.step, err.message]).toEqual([
      "tools",
      "bootstrap(EarlyModule): cannot build @Tool class NeedsNobody: its constructor argument 0 (test:scan:nobody) is not provided — add test:scan:nobody to the module's providers (or register it in the container given to bootstrap)",
    ]);
    expect(existsSync(marker)).toBe(false);
  });

  it("(control) a module that scans clean does open its remote", async () => {
    const marker = join(dir, "started");
    @McpServer({ name: "late", tools: [], remotes: [markingRemote(marker)] })
    class LateModule {}
    expect((await refusal(LateModule)).step).toBe("remote");
    expect(existsSync(marker)).toBe(true);
  });

  it("a dependency further down the chain is named with the chain", async () => {
    @injectable()
    class Repo {
      constructor(@inject(NOBODY) readonly url: string) {}
    }
    @injectable()
    class Service {
      constructor(readonly repo: Repo) {}
    }
    @McpServer({ name: "chain", tools: [], providers: [Service, Repo] })
    class ChainModule {}
    const err = await refusal(ChainModule);
    expect(err.message).toBe(
      "bootstrap(ChainModule): cannot build provider Service: its dependency Repo: constructor argument 0 (test:scan:nobody) is not provided — add test:scan:nobody to the module's providers (or register it in the container given to bootstrap)",
    );
  });

  it("two tools served under one wire name are refused before serving", async () => {
    const a = tool({ name: "run.check", description: "a", sideEffecting: false }, () => "a");
    const b = tool({ name: "run_check", description: "b", sideEffecting: false }, () => "b");
    @McpServer({ name: "twins", tools: [a, b] })
    class TwinsModule {}
    const err = await refusal(TwinsModule);
    expect([err.step, err.message]).toEqual([
      "names",
      "bootstrap(TwinsModule): tools 'run.check' and 'run_check' are both served as 'run_check'; rename one (@Tool({ name }) or tool({ name }))",
    ]);
  });
});

describe("the server name follows serveRegistry's rule", () => {
  it("'a__b' is refused when @McpServer is applied, with checkServerName's own words", () => {
    const why = (() => {
      try {
        checkServerName("a__b");
      } catch (e) {
        return (e as Error).message;
      }
      throw new Error("checkServerName accepted a__b");
    })();
    expect(() => {
      @McpServer({ name: "a__b", tools: [] })
      class Ambiguous {}
      return Ambiguous;
    }).toThrow(new DefinitionError("Ambiguous", "name", `@McpServer on Ambiguous: 'name' must match the MCP server-name rule: ${why}`));
  });

  it("names the rule accepts are accepted (long ones too: the 64-character limit is on qualified tool names)", () => {
    const long = "x".repeat(40);
    expect(() => McpServer({ name: long, tools: [] })(class Long {})).not.toThrow();
    expect(() => McpServer({ name: "my-server_2", tools: [] })(class Plain {})).not.toThrow();
  });
});

describe("request scope at bootstrap", () => {
  it("an Asker (built once for the app) that depends on the per-call RunContext is refused, naming the chain and the fix", async () => {
    @injectable()
    class CallLog {
      constructor(readonly call: RunContext) {}
    }
    @injectable()
    class LoggingAsker implements Asker {
      constructor(readonly log: CallLog) {}
      async ask() {
        return { kind: "approve" as const };
      }
    }
    @McpServer({ name: "asks", tools: [], providers: [CallLog, LoggingAsker], approvals: LoggingAsker, guard: "asker" })
    class AskingModule {}
    const err = await refusal(AskingModule);
    expect([err.step, err.message]).toEqual([
      "approvals",
      "bootstrap(AskingModule): 'approvals' names LoggingAsker, which depends on the per-call RunContext (LoggingAsker -> CallLog -> RunContext); the Asker is built once for the app and would hold one call's context. Take what you need from ask(request) instead, or inject the app's context as a value ({ provide: Token, useValue: ctx }).",
    ]);
  });
});

describe("bootstrap options", () => {
  @McpServer({ name: "plain", tools: [] })
  class PlainModule {}

  it("are checked, naming the option and what is accepted", async () => {
    expect((await optionRefusal(PlainModule, { timeoutMs: -1 })).message).toBe(
      "bootstrap(PlainModule): timeoutMs must be a positive number of milliseconds up to 2147483647, or left unset to wait forever; got number -1",
    );
    expect((await optionRefusal(PlainModule, { transport: "ws" as never })).message).toBe(
      `bootstrap(PlainModule): transport must be one of "http", "stdio", got string "ws"`,
    );
    expect((await optionRefusal(PlainModule, { host: "0.0.0.0" } as never)).message).toBe(
      "bootstrap(PlainModule): unknown option 'host'. Accepted options: container, ctx, transport, port, timeoutMs, serve, stdin, stdout, asker, tasks",
    );
    expect((await optionRefusal(PlainModule, { port: -1 })).message).toBe(
      "bootstrap(PlainModule): port must be an integer 0-65535 (0 = ephemeral), got number -1",
    );
    expect((await optionRefusal(PlainModule, { port: 4000, transport: "stdio" })).message).toBe(
      `bootstrap(PlainModule): 'port' is for the loopback listener; transport: "stdio" has none`,
    );
    expect((await optionRefusal(PlainModule, { transport: "stdio", serve: false })).option).toBe("serve");
  });

  it("a module declaring transport stdio without command is refused with both ways out", async () => {
    @McpServer({ name: "child", tools: [], transport: "stdio" })
    class ChildModule {}
    expect((await refusal(ChildModule)).message).toBe(
      `bootstrap(ChildModule): the module declares transport: "stdio" without 'command': name the command a CLI spawns (command: stdioCommand("./dist/mcp-server.js")), or serve this process on stdio with bootstrap(ChildModule, { transport: "stdio" })`,
    );
  });
});

describe("remote() checks its options by one declared spec", () => {
  const server = new StdioServer({ command: process.execPath, args: ["-e", ""] });

  it("refuses an unknown option, a wrong-kind value and null options by name, as OptionsError", () => {
    expect(() => remote("fs", server, { prefx: "fs_" } as never)).toThrow(
      optionsError("remote('fs'): unknown option 'prefx'. Accepted options: prefix, trustReadOnlyHint"),
    );
    expect(() => remote("fs", server, { prefix: 7 } as never)).toThrow(
      optionsError("remote('fs'): 'prefix' must be a string, got number 7"),
    );
    expect(() => remote("fs", server, { trustReadOnlyHint: "yes" } as never)).toThrow(
      optionsError(`remote('fs'): 'trustReadOnlyHint' must be true or false, got string "yes"`),
    );
    expect(() => remote("fs", server, null as never)).toThrow(
      optionsError("remote('fs'): options must be an object { prefix, trustReadOnlyHint }, got null"),
    );
    expect(() => remote("f s", server)).toThrow(optionsError(`remote(): alias must match [A-Za-z0-9_-]{1,64}, got "f s"`));
    expect(() => remote("fs", null as never)).toThrow(
      optionsError("remote('fs'): server must be a StdioServer or StreamableHttpServer, got null"),
    );
  });

  it("(control) good options are kept", () => {
    expect(remote("fs", server, { prefix: "fs_", trustReadOnlyHint: true })).toEqual({
      alias: "fs",
      server,
      prefix: "fs_",
      trustReadOnlyHint: true,
    });
    expect(remote("fs", server)).toEqual({ alias: "fs", server, prefix: "", trustReadOnlyHint: false });
  });
});
