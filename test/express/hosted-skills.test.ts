/**
 * @module test/express/hosted-skills.test
 * A hosted module's folder of skills behind the one fence: with
 * `skills: { dir, scopes }`, a token without the scopes is not offered the
 * extension and its `skills/list`, `skills/get` and `skill://` reads are 403
 * `insufficient_scope`; a token with them lists and reads the skills,
 * verified by the SDK's host side, in both eras.
 */
import "reflect-metadata";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { Client as V2Client } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { tool } from "../../src/index.js";
import { McpServer } from "../../src/mcp/index.js";
import { skillsFolder } from "../helpers/skills-folder.js";
import { closeAll, grant, hosted, messages, rawCall, sayYes } from "./kit.js";
import { v2Client } from "../helpers/v2-client.js";

const folder = skillsFolder();
afterEach(async () => {
  await closeAll();
});
// Removed when the file is done: a worker process is not sure to exit before the suite checks for leftovers.
afterAll(() => {
  folder.close();
});

const ping = tool({ description: "Answer pong.", sideEffecting: false }, function ping() {
  return "pong";
});

@McpServer({ name: "skilled", tools: [ping], skills: { dir: folder.dir, scopes: ["skills:read"] } })
class SkilledModule {}

describe.each(["2025-11-25", "2026-07-28"] as const)("a hosted module's skills behind the fence (%s)", (era) => {
  const pin = era === "2026-07-28" ? era : undefined;

  it("a token without the skills' scopes is not offered them; one with them lists and reads them, verified", async () => {
    const h = await hosted(SkilledModule);
    await using narrow = await v2Client(h.url, { token: grant(h, "narrow", []), version: pin, elicit: sayYes });
    expect(narrow.getServerCapabilities()?.extensions?.["io.modelcontextprotocol/skills"]).toBeUndefined();
    expect((await new SkillsClient(narrow as V2Client).list()).skills).toEqual([]);
    await using full = await v2Client(h.url, { token: grant(h, "full", ["skills:read"]), version: pin, elicit: sayYes });
    const skills = new SkillsClient(full as V2Client);
    const listing = await skills.list();
    expect(listing.skills.map((s) => s.frontmatter.name)).toEqual(["deploy", "review"]);
    expect(await skills.read(listing.skills[1]!, "references/GUIDE.md")).toMatchObject({
      verified: true,
      text: "# Guide\n\nLook for off-by-one errors.\n",
    });
  });

  it.each([
    ["skills/list", {}, "the skills"],
    ["skills/get", { uri: "skill://review/SKILL.md" }, "the skills"],
    ["resources/read", { uri: "skill://review/references/GUIDE.md" }, "resource 'skill://review/references/GUIDE.md'"],
  ] as const)("%s without the scope is 403 insufficient_scope naming it; with it, answered", async (method, params, named) => {
    const h = await hosted(SkilledModule);
    const res = await rawCall(h.url, era, method, params, grant(h, "narrow", []));
    const text = await res.text();
    expect(res.status).toBe(403);
    expect(res.headers.get("www-authenticate") ?? "").toContain('scope="skills:read"');
    expect(JSON.parse(text)).toMatchObject({
      error: "insufficient_scope",
      error_description: `${named} needs the scope(s) skills:read; the access token does not carry them all`,
    });
    expect(text).not.toContain("off-by-one");
    const ok = await rawCall(h.url, era, method, params, grant(h, "full", ["skills:read"]));
    expect(ok.status).toBe(200);
    expect((await messages(ok)).at(-1)).toHaveProperty("result");
  });
});
