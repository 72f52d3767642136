/**
 * @module test/mcp-serve/resources-prompts.test
 * Resources and prompts served by serveRegistry over a real loopback session
 * (SDK client): fixed and templated resources, list(), text and binary reads,
 * a read that throws (a JSON-RPC error whose message ends in the one error
 * line, `Name: message`, as a tool's failure reads; the session keeps serving), prompts
 * from classes, objects, core Prompts and static strings, argument checks,
 * name sanitising and the collisions refused before anything binds.
 */
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { DefinitionError, PromptTemplate, tool } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { Prompt, Resource, serveRegistry } from "../../src/mcp/index.js";
import { OptionsError } from "../../src/index.js";
import type { RunContext } from "../../src/context/run-context.js";
import { errorLine } from "../../src/util/format.js";
import { sdkClientFor, ServedSpecs } from "./helpers.js";

const specs = new ServedSpecs();
const { served } = specs;
afterEach(() => specs.stopAll());

const ping = tool({ description: "Answer pong.", sideEffecting: false }, function ping() {
  return "pong";
});

@Resource({ uri: "notes://readme", description: "The readme.", mimeType: "text/markdown" })
class Readme {
  read(_params: Record<string, string>, ctx: RunContext): string {
    return `# readme (caller server ${String(ctx.caller?.server)})`;
  }
}

@Resource({ uriTemplate: "notes://{id}/body", name: "note", description: "One note by id." })
class NoteBody {
  read({ id }: Record<string, string>): string {
    if (id === "missing") throw new Error(`no note '${id}'`);
    // The app's own McpError (the SDK's ESM build, as an app imports it): its code and data reach the client.
    if (id === "gone") throw new McpError(-32002, `note '${id}' was deleted`, { uri: `notes://${id}/body` });
    return `note ${id}`;
  }
  list() {
    return [{ uri: "notes://1/body", name: "note 1" }, { uri: "notes://2/body" }];
  }
}

@Prompt({ name: "review.file", description: "Review a file.", arguments: [{ name: "path", required: true }, { name: "focus" }] })
class ReviewFile {
  render({ path, focus }: Record<string, string>) {
    if (path === "boom") throw new Error("render exploded");
    return `Review ${path}${focus ? ` for ${focus}` : ""}.`;
  }
}

const logo = {
  uri: "images://logo",
  name: "logo",
  mimeType: "image/png",
  read: () => new Uint8Array([137, 80, 78, 71]),
};

describe("serveRegistry({ resources, prompts }) over a loopback session", () => {
  it("lists, reads and templates resources; a throwing read is a JSON-RPC error and the session keeps serving", async () => {
    const spec = await served([ping], { name: "engine", ctx: makeTestCtx(), auth: "none", resources: [Readme, NoteBody, logo] });
    await using client = await sdkClientFor(spec.url!);
    expect(client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: true },
      logging: {},
      resources: { subscribe: true, listChanged: true },
      completions: {},
    });
    expect((await client.listResources()).resources).toEqual([
      { uri: "notes://readme", name: "readme", description: "The readme.", mimeType: "text/markdown" },
      { uri: "images://logo", name: "logo", mimeType: "image/png" },
      { uri: "notes://1/body", name: "note 1", description: "One note by id." },
      { uri: "notes://2/body", name: "note", description: "One note by id." },
    ]);
    // With the module's own template for results over its budget (result budgets are on by default).
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([
      { uriTemplate: "notes://{id}/body", name: "note", description: "One note by id." },
      {
        uriTemplate: "agentkit://results/{id}",
        name: "results",
        description: "A tool result too long to show whole (the link in its answer); readable by the caller that got it until it expires",
      },
    ]);
    expect((await client.readResource({ uri: "notes://readme" })).contents).toEqual([
      { uri: "notes://readme", mimeType: "text/markdown", text: "# readme (caller server engine)" },
    ]);
    expect((await client.readResource({ uri: "notes://a%20b/body" })).contents).toEqual([
      { uri: "notes://a%20b/body", mimeType: "text/plain", text: "note a b" },
    ]);
    expect((await client.readResource({ uri: "images://logo" })).contents).toEqual([
      { uri: "images://logo", mimeType: "image/png", blob: "iVBORw==" },
    ]);
    await expect(client.readResource({ uri: "notes://missing/body" })).rejects.toThrow(
      "resource 'notes://missing/body' could not be read: Error: no note 'missing'",
    );
    // SDK v2 sends a resource miss (-32002 as thrown) as -32602 with data { uri }, on every protocol revision (the 2026-07-28 rule).
    await expect(client.readResource({ uri: "nowhere://x" })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("resource 'nowhere://x' not found"),
      data: { uri: "nowhere://x" },
    });
    await expect(client.readResource({ uri: "notes://gone/body" })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("note 'gone' was deleted"),
      data: { uri: "notes://gone/body" },
    });
    expect(await client.subscribeResource({ uri: "notes://readme" })).toEqual({});
    expect(await client.unsubscribeResource({ uri: "notes://readme" })).toEqual({});
    // Still serving after the errors.
    expect((await client.callTool({ name: "ping", arguments: {} })).content).toEqual([{ type: "text", text: "pong" }]);
  });

  it("a failing read or render reads like any other failure: the one error line (errorLine), its name kept", async () => {
    class NoteLockedError extends Error {
      override name = "NoteLockedError";
    }
    const locked = {
      uri: "notes://locked",
      name: "locked",
      read: (): string => {
        throw new NoteLockedError("note 'locked' is being edited");
      },
    };
    const odd = {
      name: "odd",
      render: (): string => {
        throw "a bare string";
      },
    };
    const spec = await served([ping], { name: "engine", ctx: makeTestCtx(), auth: "none", resources: [locked], prompts: [odd] });
    await using client = await sdkClientFor(spec.url!);
    const read = await client.readResource({ uri: "notes://locked" }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(read).toMatchObject({ code: -32603 });
    expect((read as Error).message).toContain(
      `resource 'notes://locked' could not be read: ${errorLine(new NoteLockedError("note 'locked' is being edited"))}`,
    );
    expect((read as Error).message).toContain("NoteLockedError: note 'locked' is being edited");
    await expect(client.getPrompt({ name: "odd" })).rejects.toThrow(`prompt 'odd' could not be rendered: ${errorLine("a bare string")}`);
  });

  it("serves prompts from a class, an object, a core Prompt and a static string; checks arguments; sanitises names", async () => {
    const spec = await served([ping], {
      name: "engine",
      ctx: makeTestCtx(),
      auth: "none",
      prompts: [
        ReviewFile,
        new PromptTemplate({ name: "greet", template: "Hello {{who}}!" }),
        {
          name: "pair",
          description: "Two turns.",
          render: () =>
            [
              { role: "user", content: { type: "text", text: "hi" } },
              { role: "assistant", content: { type: "text", text: "hello" } },
            ] as const,
        },
      ],
    });
    await using client = await sdkClientFor(spec.url!);
    expect((await client.listPrompts()).prompts).toEqual([
      {
        name: "review_file",
        description: "Review a file.",
        arguments: [
          { name: "path", required: true },
          { name: "focus", required: false },
        ],
      },
      { name: "greet", description: "Prompt 'greet' (version 1)", arguments: [{ name: "who", required: true }] },
      { name: "pair", description: "Two turns.", arguments: [] },
    ]);
    expect(await client.getPrompt({ name: "review_file", arguments: { path: "a.ts", focus: "races" } })).toEqual({
      description: "Review a file.",
      messages: [{ role: "user", content: { type: "text", text: "Review a.ts for races." } }],
    });
    expect((await client.getPrompt({ name: "greet", arguments: { who: "Ada" } })).messages).toEqual([
      { role: "user", content: { type: "text", text: "Hello Ada!" } },
    ]);
    expect((await client.getPrompt({ name: "pair" })).messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    await expect(client.getPrompt({ name: "review_file", arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining(
        "prompt 'review_file' is missing required argument(s) ['path']. Accepted arguments: ['path', 'focus']",
      ),
    });
    await expect(client.getPrompt({ name: "review_file", arguments: { path: "x", verbose: "1" } })).rejects.toThrow(
      "prompt 'review_file' got unexpected argument(s) ['verbose']",
    );
    await expect(client.getPrompt({ name: "review_file", arguments: { path: "boom" } })).rejects.toThrow(
      "prompt 'review_file' could not be rendered: Error: render exploded",
    );
    await expect(client.getPrompt({ name: "nope" })).rejects.toThrow(
      "unknown prompt 'nope'. Available prompts: ['greet', 'pair', 'review_file']",
    );
    expect((await client.getPrompt({ name: "greet", arguments: { who: "again" } })).messages).toHaveLength(1);
  });

  it("accepts a record of static strings, Prompts (what mcpPrompts() returns) and prompt objects, each under its key", async () => {
    const spec = await served([ping], {
      name: "engine",
      ctx: makeTestCtx(),
      auth: "none",
      prompts: {
        rules: "Be brief.",
        hello: new PromptTemplate({ name: "x", template: "Hi {{name}}" }),
        echo: { name: "ignored", render: ({ text }) => `echo ${text}`, arguments: [{ name: "text" }] },
      },
    });
    await using client = await sdkClientFor(spec.url!);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(["rules", "hello", "echo"]);
    expect((await client.getPrompt({ name: "echo", arguments: { text: "hi" } })).messages).toEqual([
      { role: "user", content: { type: "text", text: "echo hi" } },
    ]);
    expect((await client.getPrompt({ name: "rules" })).messages).toEqual([{ role: "user", content: { type: "text", text: "Be brief." } }]);
  });

  it("a server without resources or prompts declares neither and answers -32601 as before", async () => {
    // results: false — the result budget (on by default) serves its own resource template, see result-budget.test.ts.
    const spec = await served([ping], { name: "engine", ctx: makeTestCtx(), auth: "none", results: false });
    await using client = await sdkClientFor(spec.url!);
    // A 2025-era session is told of no extension (the tasks extension exists only on 2026-07-28).
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: true }, logging: {} });
    await expect(client.listPrompts()).rejects.toMatchObject({ code: -32601 });
  });

  it("refuses colliding prompt names, a URI served twice and items of no accepted form, before binding", async () => {
    const a = { name: "a.b", render: () => "1" };
    const b = { name: "a_b", render: () => "2" };
    await expect(serveRegistry([ping], { name: "engine", ctx: makeTestCtx(), prompts: [a, b] })).rejects.toThrow(
      expect.objectContaining({ code: "mcp_name" }),
    );
    await expect(serveRegistry([ping], { name: "engine", ctx: makeTestCtx(), prompts: [a, b] })).rejects.toThrow(
      "prompts 'a.b' and 'a_b' both serve as 'a_b' once sanitised",
    );
    await expect(
      serveRegistry([ping], {
        name: "engine",
        ctx: makeTestCtx(),
        resources: [Readme, { uri: "notes://readme", name: "other", read: () => "" }],
      }),
    ).rejects.toThrow(`resources 'readme' and 'other' both serve "notes://readme"`);
    await expect(serveRegistry([ping], { name: "engine", ctx: makeTestCtx(), resources: [42 as never] })).rejects.toThrow(OptionsError);
    await expect(
      serveRegistry([ping], { name: "engine", ctx: makeTestCtx(), resources: [{ uri: "no scheme", name: "x", read: () => "" }] }),
    ).rejects.toThrow(DefinitionError);
  });
});

describe("@Resource / @Prompt options are checked when applied", () => {
  it("names the class and the key", () => {
    expect(() =>
      Resource({ uri: "a://b", uriTemplate: "a://{c}" })(
        class Both {
          read() {}
        },
      ),
    ).toThrow("@Resource on Both: give exactly one of 'uri' (a fixed resource) and 'uriTemplate'");
    expect(() =>
      Resource({ uriTemplate: "a://{x" })(
        class Bad {
          read() {}
        },
      ),
    ).toThrow("has an expression this server cannot match");
    expect(() =>
      Resource({ uri: "a://b", colour: "red" } as never)(
        class Typo {
          read() {}
        },
      ),
    ).toThrow("@Resource on Typo: unknown option 'colour'");
    expect(() => Resource({ uri: "a://b" })(class NoRead {})).toThrow("@Resource on NoRead: the class must define read(params, ctx)");
    expect(() =>
      Prompt({ arguments: [{ name: "a" }, { name: "a" }] })(
        class Twice {
          render() {}
        },
      ),
    ).toThrow("@Prompt on Twice: argument 'a' is declared twice");
    expect(() => Prompt()(class NoRender {})).toThrow("@Prompt on NoRender: the class must define render(args, ctx)");
  });

  it("each rule of the declared spec refuses its own bad value, as a DefinitionError naming the key", () => {
    /** What applying a decorator threw, or undefined. */
    const thrownBy = (apply: () => unknown): unknown => {
      try {
        apply();
      } catch (err) {
        return err;
      }
      return undefined;
    };
    const resource = (options: unknown): unknown =>
      thrownBy(() =>
        Resource(options as never)(
          class R {
            read() {}
          },
        ),
      );
    const cases: Array<[unknown, string, string]> = [
      [
        undefined,
        "options",
        "@Resource on R: options are required ({ uri | uriTemplate, name?, description?, mimeType?, cacheHint?, scopes? })",
      ],
      [
        null,
        "options",
        "@Resource on R: options must be an object { uri | uriTemplate, name?, description?, mimeType?, cacheHint?, scopes? }, got null",
      ],
      [{ uri: "no scheme" }, "uri", `@Resource on R: 'uri' must be a URI with a scheme (e.g. "notes://today"), got string "no scheme"`],
      [{ uriTemplate: "notes://fixed" }, "uriTemplate", "@Resource on R: 'uriTemplate' has no {variable}; use 'uri' for a fixed resource"],
      [
        { uriTemplate: "notes://{?q}" },
        "uriTemplate",
        `@Resource on R: 'uriTemplate' "notes://{?q}" has an expression this server cannot match; use {name} (one path segment) or {+name} (may hold '/')`,
      ],
      [{ uri: "a://b", mimeType: 7 }, "mimeType", `@Resource on R: 'mimeType' must be a MIME type (e.g. "text/markdown"), got number 7`],
      [
        { uri: "a://b", name: " padded" },
        "name",
        `@Resource on R: 'name' must be a non-empty string of at most 128 characters without surrounding whitespace or control characters, got string " padded"`,
      ],
      [
        { uri: "a://b", cacheHint: { cacheScope: "shared" } },
        "cacheHint",
        `@Resource on R: cacheHint cacheScope must be "public" or "private", got string "shared"`,
      ],
      [
        { uri: "a://b", scopes: ["a b"] },
        "scopes",
        `@Resource on R: 'scopes' must be an array of OAuth scope names (printable ASCII, no spaces, quotes or backslashes; e.g. ["deploy:write"]), got array ["a b"]`,
      ],
    ];
    for (const [options, key, message] of cases) {
      expect(resource(options), JSON.stringify(options)).toMatchObject({ name: "DefinitionError", target: "R", key, message });
    }
    const prompt = (options: unknown): unknown =>
      thrownBy(() =>
        Prompt(options as never)(
          class P {
            render() {}
          },
        ),
      );
    expect(prompt({ arguments: "a" })).toMatchObject({
      key: "arguments",
      message: `@Prompt on P: 'arguments' must be an array of { name, description?, required? }, got string "a"`,
    });
    expect(prompt({ arguments: [{ name: "a b" }] })).toMatchObject({
      key: "arguments",
      message: `@Prompt on P: arguments[0] needs a 'name' of [A-Za-z0-9_.-], got string "a b"`,
    });
    expect(prompt({ arguments: [{ name: "a", required: "yes" }] })).toMatchObject({
      key: "arguments",
      message: `@Prompt on P: arguments[0].required must be true or false, got string "yes"`,
    });
    expect(prompt({ title: "t" })).toMatchObject({
      key: "title",
      message: "@Prompt on P: unknown option 'title'. Accepted options: name, description, arguments, scopes",
    });
    expect(prompt(null)).toMatchObject({
      key: "options",
      message: "@Prompt on P: options must be an object { name?, description?, arguments?, scopes? }, got null",
    });
    expect(prompt(undefined)).toBeUndefined();
  });
});
