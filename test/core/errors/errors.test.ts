/**
 * @module test/core/errors/errors.test
 * The error classes (src/errors): one base `AgentkitError` with a string
 * `code`; each subclass's typed fields and message.
 */
import { describe, expect, it } from "vitest";
import {
  AgentkitError,
  Cancelled,
  DefinitionError,
  DuplicateToolError,
  NotImplementedError,
  ToolArgumentError,
} from "../../../src/index.js";

describe("AgentkitError", () => {
  it("is an Error with a code, its class name as name, and an optional cause", () => {
    const cause = new Error("root");
    const e = new AgentkitError("not_implemented", "what happened", { cause });
    expect(e).toBeInstanceOf(Error);
    expect([e.code, e.message, e.name, e.cause]).toEqual(["not_implemented", "what happened", "AgentkitError", cause]);
    expect(e.stack).toContain("what happened");
  });

  it("every subclass shares the base and carries a string code and its own name", () => {
    const all: Array<[AgentkitError, string, string]> = [
      [new ToolArgumentError("t", ["x"], [], [], []), "tool_argument", "ToolArgumentError"],
      [new Cancelled(), "cancelled", "Cancelled"],
      [new NotImplementedError("no", "write"), "not_implemented", "NotImplementedError"],
      [new DuplicateToolError("t", "class A", "class B"), "duplicate_tool", "DuplicateToolError"],
      [new DefinitionError("A", "name", "bad"), "definition", "DefinitionError"],
    ];
    for (const [e, code, name] of all) {
      expect(e).toBeInstanceOf(AgentkitError);
      expect(e).toBeInstanceOf(Error);
      expect(typeof e.code).toBe("string");
      expect([e.code, e.name]).toEqual([code, name]);
    }
  });

  it("a subclass of a subclass keeps its own name", () => {
    class MyCancelled extends Cancelled {}
    expect(new MyCancelled().name).toBe("MyCancelled");
  });
});

describe("ToolArgumentError", () => {
  it("typed fields and the seed's message", () => {
    const e = new ToolArgumentError("run_check", ["verbose"], [], [], ["name", "strict"]);
    expect(e.message).toBe("tool 'run_check' call rejected: unexpected argument(s) ['verbose']. Accepted arguments: ['name', 'strict']");
    expect([e.tool, e.unexpected, e.missing, e.invalid, e.accepted, e.notAnObject]).toEqual([
      "run_check",
      ["verbose"],
      [],
      [],
      ["name", "strict"],
      undefined,
    ]);
  });

  it("every part, in order", () => {
    const e = new ToolArgumentError(
      "t",
      ["a", "b"],
      ["c"],
      [{ argument: "d", expected: "integer", received: 'string "7"' }],
      ["c", "d"],
      "array []",
    );
    expect(e.message).toBe(
      "tool 't' call rejected: arguments must be a JSON object, got array []; unexpected argument(s) ['a', 'b']; missing required argument(s) ['c']; " +
        "argument 'd' must be integer, got string \"7\". Accepted arguments: ['c', 'd']",
    );
  });

  it("names are quoted the Python way, even odd ones", () => {
    const e = new ToolArgumentError("t", ["it's"], [], [], []);
    expect(e.message).toBe("tool 't' call rejected: unexpected argument(s) [\"it's\"]. Accepted arguments: []");
  });
});

describe("the other errors' fields", () => {
  it("Cancelled: default message, reason, cause only for Error reasons", () => {
    expect(new Cancelled().message).toBe("the run was cancelled");
    const why = new Error("stop");
    const c = new Cancelled("stopped by user", why);
    expect([c.message, c.reason, c.cause]).toEqual(["stopped by user", why, why]);
    const s = new Cancelled(undefined, "deadline");
    expect([s.message, s.reason, s.cause]).toEqual(["the run was cancelled", "deadline", undefined]);
  });

  it("NotImplementedError: operation", () => {
    const e = new NotImplementedError("resources are read-only", "write");
    expect([e.message, e.operation]).toEqual(["resources are read-only", "write"]);
    expect(new NotImplementedError("x").operation).toBeUndefined();
  });

  it("DuplicateToolError: toolName, both owners, and where", () => {
    const e = new DuplicateToolError("deploy", "class Deploy", "function deploy");
    expect([e.toolName, e.existingOwner, e.incomingOwner]).toEqual(["deploy", "class Deploy", "function deploy"]);
    expect(e.message).toBe(
      "duplicate tool name 'deploy' in registry: already registered by class Deploy, refused for function deploy. Rename one of them (the 'name' option of @Tool/tool()).",
    );
    expect(new DuplicateToolError("x", "a", "b", "server 'engine'").message).toMatch(/^duplicate tool name 'x' in server 'engine': /);
  });

  it("DefinitionError: target and key", () => {
    const e = new DefinitionError("RunCheck", "caps", "@Tool on RunCheck: bad caps");
    expect([e.target, e.key, e.message]).toEqual(["RunCheck", "caps", "@Tool on RunCheck: bad caps"]);
  });
});
