/**
 * @module test/mcp-client/skills.test
 * `MCPClient.listSkills()` / `readSkill(name)` and `mcpSkills(client)` against
 * real served modules (loopback in both eras, and a real stdio child), and
 * `@InjectMcpSkills(alias)`: a module's remote's skills injected like its
 * prompts. Reads go through the SDK's `SkillsClient`, which checks each file
 * against the digest the server listed.
 */
import "reflect-metadata";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { injectable } from "tsyringe";
import { OptionsError, tool, McpRequestError } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import {
  bootstrap,
  InjectMcpSkills,
  MCPClient,
  McpServer,
  mcpSkills,
  remote,
  serveRegistry,
  StdioServer,
  StreamableHttpServer,
  type McpServerSpec,
  type McpSkill,
} from "../../src/mcp/index.js";
import { skillsFolder, TWO_SKILLS } from "../helpers/skills-folder.js";

const open: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

const ping = tool({ description: "Answer pong.", sideEffecting: false }, function ping() {
  return "pong";
});

async function servedSkills(withSkills = true): Promise<McpServerSpec> {
  const folder = skillsFolder();
  open.push(folder.close);
  const spec = await serveRegistry([ping], { name: "skilled", ctx: makeTestCtx(), ...(withSkills ? { skills: folder.dir } : {}) });
  await spec.start();
  open.push(() => spec.stop());
  return spec;
}

async function clientOf(spec: McpServerSpec, protocol: "2025-11-25" | "2026-07-28" = "2025-11-25"): Promise<MCPClient> {
  const client = await MCPClient.start(new StreamableHttpServer({ url: spec.url!, headers: spec.authHeaders, protocol }));
  open.push(() => client.stop());
  return client;
}

describe.each(["2025-11-25", "2026-07-28"] as const)("MCPClient skills (%s)", (era) => {
  it("lists the server's skills and reads one: its instructions, then a file on demand, each verified", async () => {
    const client = await clientOf(await servedSkills(), era);
    expect(await client.listSkills()).toEqual([
      {
        name: "deploy",
        description: "Deploy a service safely.",
        uri: "skill://deploy/SKILL.md",
        frontmatter: { name: "deploy", description: "Deploy a service safely." },
        files: ["SKILL.md"],
      },
      {
        name: "review",
        description: "Review a change for bugs and style.",
        uri: "skill://review/SKILL.md",
        frontmatter: { name: "review", description: "Review a change for bugs and style." },
        files: ["SKILL.md", "references/GUIDE.md"],
      },
    ]);
    const review = await client.readSkill("review");
    expect(review.instructions).toBe("\n# Review\n\nRead references/GUIDE.md first.\n");
    expect(await review.read("references/GUIDE.md")).toBe(TWO_SKILLS["review/references/GUIDE.md"]);
    await expect(review.read("references/MISSING.md")).rejects.toBeInstanceOf(McpRequestError);
  });
});

describe("MCPClient skills: what is refused, and servers without any", () => {
  it("readSkill of a name the server does not list throws, naming the ones it does", async () => {
    const client = await clientOf(await servedSkills());
    const err = await client.readSkill("nope").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OptionsError);
    expect((err as Error).message).toMatch(/^MCPClient\.readSkill: .* lists no skill named "nope"; its skills: \['deploy', 'review'\]$/);
  });

  it("a server without the extension lists no skills, and mcpSkills asks it nothing", async () => {
    const client = await clientOf(await servedSkills(false));
    expect(await client.listSkills()).toEqual([]);
    const debug: string[] = [];
    expect(await mcpSkills(client, { logger: { debug: (m) => debug.push(m), info: () => {}, warn: () => {}, error: () => {} } })).toEqual(
      {},
    );
    expect(debug).toEqual([expect.stringContaining("declares no io.modelcontextprotocol/skills extension")]);
  });

  it("mcpSkills gives every skill by name, read; over a real stdio child too", async () => {
    const folder = skillsFolder();
    open.push(folder.close);
    const fixture = fileURLToPath(new URL("../fixtures/servers/skills-stdio-server.mjs", import.meta.url));
    const client = await MCPClient.start(new StdioServer({ command: process.execPath, args: [fixture], env: { SKILLS_DIR: folder.dir } }));
    open.push(() => client.stop());
    const skills = await mcpSkills(client);
    expect(Object.keys(skills)).toEqual(["deploy", "review"]);
    expect(skills.deploy!.instructions).toBe("\nRun the checks, then deploy.\n");
  });
});

describe("@InjectMcpSkills(alias)", () => {
  it("a module's remote's skills are injected by alias, like its prompts", async () => {
    const spec = await servedSkills();
    @injectable()
    class Reviewer {
      constructor(@InjectMcpSkills("team") readonly skills: Record<string, McpSkill>) {}
    }
    @McpServer({
      name: "consumer",
      tools: [],
      providers: [Reviewer],
      remotes: [remote("team", new StreamableHttpServer({ url: spec.url!, headers: spec.authHeaders }))],
    })
    class ConsumerModule {}
    const app = await bootstrap(ConsumerModule, { serve: false, ctx: makeTestCtx() });
    open.push(() => app.stop());
    const reviewer = app.get(Reviewer);
    expect(Object.keys(reviewer.skills)).toEqual(["deploy", "review"]);
    expect(await reviewer.skills.review!.read("references/GUIDE.md")).toBe(TWO_SKILLS["review/references/GUIDE.md"]);
  });
});
