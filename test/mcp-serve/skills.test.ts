/**
 * @module test/mcp-serve/skills.test
 * A folder of skills served beside the tools (the MCP Skills extension, via
 * the SDK's `ext/skills`): over a real loopback socket in both protocol eras,
 * from an `@McpServer` module, and from a real stdio child, checked by the
 * SDK's own host side (`SkillsClient`), which verifies every file's size and
 * sha256 digest. Bad input: a missing folder and a malformed `SKILL.md` fail
 * the start, naming the file.
 */
import "reflect-metadata";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/client";
import { v2Client } from "../helpers/v2-client.js";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { DefinitionError, OptionsError, tool, BootstrapError } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { bootstrap, McpServer, serveRegistry } from "../../src/mcp/index.js";
import { digestOf, skillsFolder, TWO_SKILLS } from "../helpers/skills-folder.js";
import { ServedSpecs } from "./helpers.js";

const specs = new ServedSpecs();
const { served } = specs;
const folders: Array<{ close: () => void }> = [];
afterEach(async () => {
  await specs.stopAll();
  for (const f of folders.splice(0)) f.close();
});

const ping = tool({ description: "Answer pong.", sideEffecting: false }, function ping() {
  return "pong";
});

function folder(files = TWO_SKILLS): string {
  const f = skillsFolder(files);
  folders.push(f);
  return f.dir;
}

/** An SDK v2 client of `url` in `era`, and the SDK's skills host side over it. */
async function skillsClient(
  url: string,
  era: "2026-07-28" | "2025-11-25",
  headers: Record<string, string> = {},
): Promise<{ client: Client & AsyncDisposable; skills: SkillsClient }> {
  const client = await v2Client(url, { headers, version: era === "2026-07-28" ? era : "legacy" });
  expect(client.getNegotiatedProtocolVersion()).toBe(era);
  return { client, skills: new SkillsClient(client) };
}

/** What a host sees of the two skills: names, URIs, digests; and one reference file read and verified. */
async function expectTwoSkills(client: Client, skills: SkillsClient): Promise<void> {
  expect(client.getServerCapabilities()?.extensions).toHaveProperty(["io.modelcontextprotocol/skills"]);
  expect(skills.supported).toBe(true);
  const listing = await skills.list();
  expect(listing.skills.map((s) => [s.frontmatter.name, s.uri])).toEqual([
    ["deploy", "skill://deploy/SKILL.md"],
    ["review", "skill://review/SKILL.md"],
  ]);
  const review = listing.skills[1]!;
  expect(review.resources).toEqual(
    expect.arrayContaining([
      {
        uri: "skill://review/SKILL.md",
        digest: digestOf(TWO_SKILLS["review/SKILL.md"]!),
        size: Buffer.byteLength(TWO_SKILLS["review/SKILL.md"]!),
      },
      {
        uri: "skill://review/references/GUIDE.md",
        digest: digestOf(TWO_SKILLS["review/references/GUIDE.md"]!),
        size: Buffer.byteLength(TWO_SKILLS["review/references/GUIDE.md"]!),
      },
    ]),
  );
  const manifest = await skills.read(review);
  expect(manifest).toMatchObject({
    verified: true,
    frontmatter: { name: "review" },
    body: "\n# Review\n\nRead references/GUIDE.md first.\n",
  });
  const guide = await skills.read(review, "references/GUIDE.md");
  expect(guide).toMatchObject({ verified: true, text: TWO_SKILLS["review/references/GUIDE.md"] });
  expect((await skills.get("skill://deploy/SKILL.md")).skill.frontmatter).toEqual({
    name: "deploy",
    description: "Deploy a service safely.",
  });
  // The skill files are resources too: listed (each SKILL.md) and templated beside the module's own.
  expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toContain("skill://{+path}");
  expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(
    expect.arrayContaining(["skill://deploy/SKILL.md", "skill://review/SKILL.md"]),
  );
  await expect(client.readResource({ uri: "skill://review/nothing.md" })).rejects.toThrow(/skill:\/\/review\/nothing\.md/);
}

describe.each(["2025-11-25", "2026-07-28"] as const)("serveRegistry({ skills }) on loopback (%s)", (era) => {
  it("lists, gets and reads the folder's skills with the extension's digests, beside the module's own resources", async () => {
    const spec = await served([ping], {
      name: "engine",
      ctx: makeTestCtx(),
      auth: "none",
      skills: folder(),
      resources: [{ uri: "notes://readme", name: "readme", read: () => "hi" }],
    });
    const { client, skills } = await skillsClient(spec.url!, era);
    await using _ = client;
    await expectTwoSkills(client, skills);
    expect((await client.readResource({ uri: "notes://readme" })).contents[0]).toMatchObject({ text: "hi" });
    if (era === "2026-07-28") {
      // 2026-07-28 skills results carry the cache fields the SDK's client insists on.
      expect(await skills.list()).toMatchObject({ ttlMs: 0, cacheScope: "private" });
    }
  });
});

describe("@McpServer({ skills })", () => {
  it("a module serves its folder of skills on its listener", async () => {
    const dir = folder();
    @McpServer({ name: "reviewer", tools: [ping], skills: dir, auth: "none" })
    class ReviewerModule {}
    const app = await bootstrap(ReviewerModule, { ctx: makeTestCtx() });
    try {
      const { client, skills } = await skillsClient(app.spec!.url!, "2025-11-25");
      await using _ = client;
      await expectTwoSkills(client, skills);
    } finally {
      await app.stop();
    }
  });

  it("a skills option of the wrong shape is refused when the decorator is applied, naming what is accepted", () => {
    expect(() => {
      @McpServer({ name: "bad", tools: [], skills: 42 as never })
      class Bad {}
      return Bad;
    }).toThrow(DefinitionError);
    expect(() => {
      @McpServer({ name: "bad", tools: [], skills: { dir: "./s", scope: ["x"] } as never })
      class Bad {}
      return Bad;
    }).toThrow(/unknown key\(s\) scope; accepted: dir, scopes/);
  });

  it("a malformed SKILL.md fails bootstrap (step skills), naming the file", async () => {
    const dir = folder({ ...TWO_SKILLS, "broken/SKILL.md": "no frontmatter here\n" });
    @McpServer({ name: "broken", tools: [ping], skills: dir, auth: "none" })
    class BrokenModule {}
    const err = await bootstrap(BrokenModule, { ctx: makeTestCtx() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BootstrapError);
    expect(err).toMatchObject({ step: "skills" });
    expect((err as Error).message).toContain(join(dir, "broken", "SKILL.md"));
  });
});

describe("serveRegistry({ skills }): bad input fails the start, naming the file", () => {
  it("a folder that does not exist", async () => {
    const missing = join(folder(), "nope");
    const err = await serveRegistry([ping], { name: "engine", ctx: makeTestCtx(), skills: missing }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OptionsError);
    expect((err as Error).message).toBe(
      `serveRegistry: the skills folder ${missing} does not exist; skills must be a folder path (string) or { dir: string, scopes?: string[] }, the folder holding one folder per skill (<name>/SKILL.md)`,
    );
  });

  it("a file where the folder should be", async () => {
    const file = join(folder(), "deploy", "SKILL.md");
    await expect(serveRegistry([ping], { name: "engine", ctx: makeTestCtx(), skills: file })).rejects.toThrow(
      `the skills path ${file} is not a folder`,
    );
  });

  it("a SKILL.md without frontmatter, and one whose name is not its folder's", async () => {
    const dir = folder({
      ...TWO_SKILLS,
      "broken/SKILL.md": "no frontmatter here\n",
      "misnamed/SKILL.md": "---\nname: other\ndescription: x\n---\n",
    });
    const err = await serveRegistry([ping], { name: "engine", ctx: makeTestCtx(), skills: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OptionsError);
    const message = (err as Error).message;
    expect(message).toContain(`serveRegistry: the skills folder ${dir} has 2 problems the skills extension refuses:`);
    expect(message).toContain(`  ${join(dir, "broken", "SKILL.md")}: `);
    expect(message).toContain(`  ${join(dir, "misnamed", "SKILL.md")}: `);
  });

  it("a skills option of the wrong shape", async () => {
    await expect(serveRegistry([ping], { name: "engine", ctx: makeTestCtx(), skills: { dir: "" } })).rejects.toThrow(
      "serveRegistry: skills must be a folder path (string) or { dir: string, scopes?: string[] }",
    );
  });
});

describe("serveRegistryStdio({ skills }) in a real child process", () => {
  it("serves the folder's skills over stdio, verified by the SDK's host side", async () => {
    const dir = folder();
    const fixture = fileURLToPath(new URL("../fixtures/servers/skills-stdio-server.mjs", import.meta.url));
    const client = new Client({ name: "skills-stdio-test", version: "0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [fixture],
        env: { ...process.env, SKILLS_DIR: dir } as Record<string, string>,
      }),
    );
    try {
      await expectTwoSkills(client, new SkillsClient(client));
    } finally {
      await client.close();
    }
  });

  it("a SKILL.md edited after the start is refused at read, not served unverified", async () => {
    const dir = folder();
    const spec = await served([ping], { name: "engine", ctx: makeTestCtx(), auth: "none", skills: dir });
    writeFileSync(join(dir, "deploy", "SKILL.md"), "---\nname: deploy\ndescription: changed\n---\n");
    const { client } = await skillsClient(spec.url!, "2025-11-25");
    await using _ = client;
    await expect(client.readResource({ uri: "skill://deploy/SKILL.md" })).rejects.toThrow(
      "skill://deploy/SKILL.md changed since the skills catalog was loaded",
    );
  });
});
