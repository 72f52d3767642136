/**
 * @module test/mcp-di/resources-prompts.test
 * `@McpServer({ resources, prompts })` booted and read over a real loopback
 * session: constructor-injected services, the per-request `RunContext`
 * (injected and as `ctx`), completion through the class's `complete()`, and
 * a URI clash refused at bootstrap.
 */
import "reflect-metadata";
import { container, injectable } from "tsyringe";
import { afterEach, describe, expect, it } from "vitest";
import { RunContext, Tool, BootstrapError } from "../../src/index.js";
import { bootstrap, McpServer, Prompt, Resource, type McpApp } from "../../src/mcp/index.js";
import { sdkClientFor } from "../mcp-serve/helpers.js";

@injectable()
class NoteStore {
  reads = 0;
  private readonly notes = new Map([
    ["1", "buy milk"],
    ["2", "call Ada"],
    ["12", "ship it"],
  ]);
  get(id: string): string {
    this.reads++;
    const n = this.notes.get(id);
    if (n === undefined) throw new Error(`no note with id '${id}'`);
    return n;
  }
  ids(): string[] {
    return [...this.notes.keys()];
  }
}

@Resource({ uriTemplate: "notes://{id}", description: "A note by id.", mimeType: "text/plain" })
class NoteResource {
  constructor(
    private readonly store: NoteStore,
    private readonly call: RunContext,
  ) {}
  read({ id }: Record<string, string>, ctx: RunContext): string {
    return `${this.store.get(id)} (same ctx: ${String(ctx === this.call)}, session: ${ctx.caller?.kind === "loopback" ? typeof ctx.caller.sessionId : ctx.caller?.kind})`;
  }
  list() {
    return this.store.ids().map((id) => ({ uri: `notes://${id}`, name: `note ${id}` }));
  }
  complete(argument: string, value: string): string[] {
    return argument === "id" ? this.store.ids().filter((id) => id.startsWith(value)) : [];
  }
}

@Prompt({ description: "Summarise a note.", arguments: [{ name: "id", required: true, description: "The note id." }] })
class SummariseNote {
  constructor(private readonly store: NoteStore) {}
  render({ id }: Record<string, string>) {
    return [
      {
        role: "user" as const,
        content: { type: "resource" as const, resource: { uri: `notes://${id}`, mimeType: "text/plain", text: this.store.get(id) } },
      },
      { role: "user" as const, content: { type: "text" as const, text: "Summarise the note above." } },
    ];
  }
  complete(_argument: string, value: string): string[] {
    return this.store.ids().filter((id) => id.startsWith(value));
  }
}

@Tool({ description: "Count reads.", sideEffecting: false })
class CountReads {
  constructor(private readonly store: NoteStore) {}
  run(): string {
    return String(this.store.reads);
  }
}

@McpServer({
  name: "notes",
  tools: [CountReads],
  resources: [NoteResource],
  prompts: [SummariseNote],
  providers: [NoteStore],
  auth: "none",
})
class NotesModule {}

const apps: McpApp[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.stop();
});

describe("@McpServer({ resources, prompts })", () => {
  it("serves injected resources and prompts with the per-request context, and completes their arguments", async () => {
    const app = await bootstrap(NotesModule, { container: container.createChildContainer() });
    apps.push(app);
    await using client = await sdkClientFor(app.spec!.url!);
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(["notes://1", "notes://2", "notes://12"]);
    expect((await client.readResource({ uri: "notes://2" })).contents).toEqual([
      { uri: "notes://2", mimeType: "text/plain", text: "call Ada (same ctx: true, session: string)" },
    ]);
    await expect(client.readResource({ uri: "notes://9" })).rejects.toThrow(
      "resource 'notes://9' could not be read: Error: no note with id '9'",
    );
    const prompt = await client.getPrompt({ name: "summarise_note", arguments: { id: "12" } });
    expect(prompt.messages[0]).toEqual({
      role: "user",
      content: { type: "resource", resource: { uri: "notes://12", mimeType: "text/plain", text: "ship it" } },
    });
    // One NoteStore singleton behind the tool, the resource and the prompt.
    expect((await client.callTool({ name: "count_reads", arguments: {} })).content).toEqual([{ type: "text", text: "3" }]);
    expect(await client.complete({ ref: { type: "ref/prompt", name: "summarise_note" }, argument: { name: "id", value: "1" } })).toEqual({
      completion: { values: ["1", "12"], total: 2, hasMore: false },
    });
    expect(await client.complete({ ref: { type: "ref/resource", uri: "notes://{id}" }, argument: { name: "id", value: "2" } })).toEqual({
      completion: { values: ["2"], total: 1, hasMore: false },
    });
    await expect(client.complete({ ref: { type: "ref/prompt", name: "nope" }, argument: { name: "id", value: "" } })).rejects.toThrow(
      "completion for unknown prompt 'nope'",
    );
  });

  it("refuses two resources on one URI at bootstrap, naming both", async () => {
    @Resource({ uri: "notes://a" })
    class A {
      read() {
        return "a";
      }
    }
    @Resource({ uri: "notes://a", name: "other_a" })
    class B {
      read() {
        return "b";
      }
    }
    @McpServer({ name: "notes", tools: [], resources: [A, B] })
    class Clash {}
    const err = await bootstrap(Clash, { container: container.createChildContainer() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BootstrapError);
    expect((err as BootstrapError).message).toContain(`resources 'a' and 'other_a' both serve "notes://a"`);
  });

  it("@McpServer refuses a resources entry that is not a @Resource class, naming the index", () => {
    class Plain {}
    expect(() => McpServer({ name: "x", tools: [], resources: [Plain as never] })(class M {})).toThrow(
      "@McpServer on M: resources[0] (Plain) is not a @Resource class or a resource object { uri | uriTemplate, name, read }",
    );
  });
});
