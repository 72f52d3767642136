/**
 * @module test/express/hosted-fence.test
 * One fence for a hosted module: its resources, resource templates,
 * completions and prompts are filtered by the token's scopes exactly as its
 * tools are — left out of every list for a token that lacks a scope, and 403
 * `insufficient_scope` (before anything runs) on a read, a get, a completion
 * or a subscription, in both eras, a packed 2025 batch included. A resource's
 * read and a prompt's render see the caller through `hostedCaller(ctx)`.
 * Tokens are real JWTs from a local authorization server on 127.0.0.1,
 * checked by `jwtVerifier`.
 */
import "reflect-metadata";
import { afterEach, describe, expect, it } from "vitest";
import { Tool, type RunContext } from "../../src/index.js";
import { McpServer, Prompt, Resource } from "../../src/mcp/index.js";
import { hostedCaller, jwtVerifier } from "../../src/express/index.js";
import { startAuthServer, type TestAuthServer } from "../helpers/oauth-server.js";
import { closeAll, hosted, messages, post, rawCall, sayYes, type Hosted } from "./kit.js";
import { v2Client } from "../helpers/v2-client.js";
import type { McpRouterTarget } from "../../src/express/index.js";

const servers: TestAuthServer[] = [];
afterEach(async () => {
  await closeAll();
  for (const s of servers.splice(0)) await s.close();
});

const NOTES: Record<string, string> = { "1": "payroll: alice 100k", "2": "lunch: tacos" };

@Tool({
  description: "Read a note.",
  sideEffecting: false,
  scopes: ["notes:read"],
  input: { type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false },
})
class ReadNote {
  run({ id }: { id: string }): string {
    return NOTES[id] ?? "";
  }
}

/** The module the attack used, its resources and prompts as served objects (the form `@McpServer` takes beside classes). */
@McpServer({
  name: "notes",
  tools: [ReadNote],
  resources: [
    {
      uri: "notes://motd",
      name: "motd",
      read: (_p: Record<string, string>, ctx: RunContext) => `motd for ${hostedCaller(ctx)?.subject ?? "nobody"}`,
    },
    { uri: "notes://index", name: "index", scopes: ["notes:read"], read: () => Object.keys(NOTES).join(",") },
    {
      uriTemplate: "notes://{id}",
      name: "note",
      scopes: ["notes:read"],
      read: ({ id }: Record<string, string>) => NOTES[id!] ?? "",
      list: () => Object.keys(NOTES).map((id) => ({ uri: `notes://${id}` })),
      complete: (_a: string, v: string) => Object.keys(NOTES).filter((id) => id.startsWith(v)),
    },
  ],
  prompts: [
    { name: "hello", render: (_a: Record<string, string>, ctx: RunContext) => `hello ${hostedCaller(ctx)?.subject ?? "nobody"}` },
    {
      name: "summarize",
      scopes: ["notes:read"],
      arguments: [{ name: "id", required: true }],
      render: ({ id }: Record<string, string>) => `Summarize: ${NOTES[id!]}`,
      complete: () => Object.keys(NOTES),
    },
  ],
})
class NotesModule {}

/** A hosted app whose verifier is `jwtVerifier` against a fresh local authorization server; `token(scopes)` mints for it. */
async function fenced(
  target: McpRouterTarget,
): Promise<{ h: Hosted; token: (scopes: readonly string[], subject?: string) => Promise<string> }> {
  const as = await startAuthServer();
  servers.push(as);
  // The audience is the app's own URL, known once it listens: the verifier is made then.
  const verifier: { verify?: ReturnType<typeof jwtVerifier> } = {};
  // results: false: the fence is about scoped items; the read_result tool and results template budgets add are every token's.
  const h = await hosted(target, { verifyAccessToken: (t) => verifier.verify!(t), results: false });
  verifier.verify = jwtVerifier({ issuer: as.issuer, audience: h.url });
  return { h, token: (scopes, subject = "alice") => as.mint({ audience: h.url, scopes, clientId: "client-a", subject }) };
}

/** What each uncovered request is, as the attack sent it. */
const UNCOVERED: ReadonlyArray<readonly [string, string, Record<string, unknown>, string]> = [
  ["a templated read", "resources/read", { uri: "notes://1" }, "resource 'notes://1'"],
  ["a fixed read", "resources/read", { uri: "notes://index" }, "resource 'notes://index'"],
  ["a prompt", "prompts/get", { name: "summarize", arguments: { id: "1" } }, "prompt 'summarize'"],
  [
    "a template's completion",
    "completion/complete",
    { ref: { type: "ref/resource", uri: "notes://{id}" }, argument: { name: "id", value: "" } },
    "resource 'notes://{id}'",
  ],
  [
    "a prompt's completion",
    "completion/complete",
    { ref: { type: "ref/prompt", name: "summarize" }, argument: { name: "id", value: "" } },
    "prompt 'summarize'",
  ],
];

describe.each(["2026-07-28", "2025-11-25"] as const)("the fence of a hosted module (%s)", (era) => {
  const pin = era === "2026-07-28" ? era : undefined;

  it("a token without the scope sees no scoped resource, template or prompt in any list; one with it sees them all", async () => {
    const { h, token } = await fenced(NotesModule);
    await using narrow = await v2Client(h.url, { token: await token([]), version: pin, elicit: sayYes });
    expect((await narrow.listTools()).tools).toEqual([]);
    expect((await narrow.listResources()).resources.map((r) => r.uri)).toEqual(["notes://motd"]);
    expect((await narrow.listResourceTemplates()).resourceTemplates).toEqual([]);
    expect((await narrow.listPrompts()).prompts.map((p) => p.name)).toEqual(["hello"]);
    await using full = await v2Client(h.url, { token: await token(["notes:read"]), version: pin, elicit: sayYes });
    expect((await full.listResources()).resources.map((r) => r.uri).sort()).toEqual([
      "notes://1",
      "notes://2",
      "notes://index",
      "notes://motd",
    ]);
    expect((await full.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(["notes://{id}"]);
    expect((await full.listPrompts()).prompts.map((p) => p.name).sort()).toEqual(["hello", "summarize"]);
    expect((await full.readResource({ uri: "notes://1" })).contents[0]).toMatchObject({ text: "payroll: alice 100k" });
    expect(
      (await full.complete({ ref: { type: "ref/resource", uri: "notes://{id}" }, argument: { name: "id", value: "" } })).completion.values,
    ).toEqual(["1", "2"]);
  });

  it.each(UNCOVERED)(
    "%s the token does not cover is 403 insufficient_scope naming it and the scope, as a tool's call is",
    async (_what, method, params, named) => {
      const { h, token } = await fenced(NotesModule);
      const res = await rawCall(h.url, era, method, params, await token([]));
      const text = await res.text();
      expect(res.status).toBe(403);
      const challenge = res.headers.get("www-authenticate") ?? "";
      expect(challenge).toContain('error="insufficient_scope"');
      expect(challenge).toContain('scope="notes:read"');
      expect(challenge).toContain(`resource_metadata="${h.url}/.well-known/oauth-protected-resource"`);
      expect(JSON.parse(text)).toMatchObject({
        error: "insufficient_scope",
        error_description: `${named} needs the scope(s) notes:read; the access token does not carry them all`,
      });
      expect(text).not.toContain("payroll");
      // The same request with the scope is served.
      const ok = await rawCall(h.url, era, method, params, await token(["notes:read"]));
      expect(ok.status).toBe(200);
      expect((await messages(ok)).at(-1)).toHaveProperty("result");
    },
  );

  it("a resource's read and a prompt's render see the caller through hostedCaller(ctx)", async () => {
    const { h, token } = await fenced(NotesModule);
    await using client = await v2Client(h.url, { token: await token([], "dana"), version: pin, elicit: sayYes });
    expect((await client.readResource({ uri: "notes://motd" })).contents[0]).toMatchObject({ text: "motd for dana" });
    expect((await client.getPrompt({ name: "hello" })).messages[0]).toMatchObject({ content: { type: "text", text: "hello dana" } });
  });
});

describe("the fence, packed and subscribed", () => {
  it("a 2025 batch packing an uncovered read behind a covered request is refused whole, before anything runs", async () => {
    const { h, token } = await fenced(NotesModule);
    const batch = [
      { jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: "notes://motd" } },
      { jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri: "notes://2" } },
    ];
    const res = await post(h.url, batch, { authorization: `Bearer ${await token([])}`, "mcp-protocol-version": "2025-03-26" });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({
      error: "insufficient_scope",
      error_description: expect.stringContaining("resource 'notes://2'"),
    });
  });

  it("resources/subscribe (2025) and a subscriptions/listen naming an uncovered URI (2026-07-28) are 403 too", async () => {
    const { h, token } = await fenced(NotesModule);
    const bare = await token([]);
    expect((await rawCall(h.url, "2025-11-25", "resources/subscribe", { uri: "notes://1" }, bare)).status).toBe(403);
    const listen = await rawCall(
      h.url,
      "2026-07-28",
      "subscriptions/listen",
      { notifications: { resourceSubscriptions: ["notes://motd", "notes://1"] } },
      bare,
    );
    expect(listen.status).toBe(403);
    expect(await listen.json()).toMatchObject({ error_description: expect.stringContaining("resource 'notes://1'") });
  });

  it("the protected-resource metadata's scopes_supported holds the resources' and prompts' scopes beside the tools'", async () => {
    @Resource({ uri: "books://shelf", scopes: ["books:read"] })
    class Shelf {
      read(): string {
        return "shelf";
      }
    }
    @Prompt({ scopes: ["prompts:use"] })
    class Ask {
      render(): string {
        return "ask";
      }
    }
    @McpServer({ name: "library", tools: [ReadNote], resources: [Shelf], prompts: [Ask] })
    class LibraryModule {}
    const { h } = await fenced(LibraryModule);
    const doc = (await (await fetch(`${h.url}/.well-known/oauth-protected-resource`)).json()) as { scopes_supported: string[] };
    expect(doc.scopes_supported).toEqual(["books:read", "notes:read", "prompts:use"]);
  });
});

describe("@Resource({ scopes }) and @Prompt({ scopes })", () => {
  it.each(["2026-07-28", "2025-11-25"] as const)("decorated classes are fenced the same way, and read the caller (%s)", async (era) => {
    @Resource({ uriTemplate: "vault://{key}", scopes: ["vault:read"], description: "A secret." })
    class Vault {
      read({ key }: Record<string, string>, ctx: RunContext): string {
        return `${key} for ${hostedCaller(ctx)?.clientId ?? "nobody"}`;
      }
      complete(): string[] {
        return ["a", "b"];
      }
    }
    @Prompt({ scopes: ["vault:read"], arguments: [{ name: "key", required: true }] })
    class Reveal {
      render({ key }: Record<string, string>, ctx: RunContext): string {
        return `reveal ${key} to ${hostedCaller(ctx)?.subject ?? "nobody"}`;
      }
    }
    @McpServer({ name: "vault", tools: [], resources: [Vault], prompts: [Reveal] })
    class VaultModule {}
    const { h, token } = await fenced(VaultModule);
    await using narrow = await v2Client(h.url, { token: await token([]), version: era === "2026-07-28" ? era : undefined, elicit: sayYes });
    expect((await narrow.listResourceTemplates()).resourceTemplates).toEqual([]);
    expect((await narrow.listPrompts()).prompts).toEqual([]);
    expect((await rawCall(h.url, era, "resources/read", { uri: "vault://k1" }, await token([]))).status).toBe(403);
    expect((await rawCall(h.url, era, "prompts/get", { name: "reveal", arguments: { key: "k1" } }, await token([]))).status).toBe(403);
    await using full = await v2Client(h.url, {
      token: await token(["vault:read"], "erin"),
      version: era === "2026-07-28" ? era : undefined,
      elicit: sayYes,
    });
    expect((await full.readResource({ uri: "vault://k1" })).contents[0]).toMatchObject({ text: "k1 for client-a" });
    expect((await full.getPrompt({ name: "reveal", arguments: { key: "k1" } })).messages[0]).toMatchObject({
      content: { text: "reveal k1 to erin" },
    });
  });

  it("a bad scopes value is refused when the decorator is applied, naming the class and the key", () => {
    expect(() => {
      @Resource({ uri: "x://y", scopes: ["has space"] })
      class Bad {
        read(): string {
          return "";
        }
      }
      return Bad;
    }).toThrow(/@Resource on Bad: 'scopes' must be an array of OAuth scope names/);
    expect(() => {
      @Prompt({ scopes: "notes:read" as never })
      class BadPrompt {
        render(): string {
          return "";
        }
      }
      return BadPrompt;
    }).toThrow(/@Prompt on BadPrompt: 'scopes' must be an array of OAuth scope names/);
  });
});
