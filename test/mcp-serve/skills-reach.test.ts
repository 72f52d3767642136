/**
 * @module test/mcp-serve/skills-reach.test
 * The reach `attachSkills` (src/mcp/sdk-reach.ts) checked against the
 * installed SDK: `SkillsExtension.attach()` touches only the members of its
 * argument the package hands it (`SKILLS_HOST_MEMBERS_USED`) and registers
 * exactly one `skill://` template whose read answers. An SDK that attaches
 * differently fails here, naming the member.
 */
import { describe, expect, it } from "vitest";
import { Server } from "@modelcontextprotocol/server";
import { SkillsExtension, memorySkillFiles } from "@modelcontextprotocol/server/ext/skills";
import { attachSkills, SKILLS_HOST_MEMBERS_USED } from "../../src/mcp/sdk-reach.js";
import { TWO_SKILLS } from "../helpers/skills-folder.js";

describe("sdk-reach: attachSkills", () => {
  it("attach() uses only the host members the reach provides", async () => {
    const catalog = await SkillsExtension.load(memorySkillFiles({ ...TWO_SKILLS }), { strict: true });
    const server = new Server({ name: "reach", version: "0" }, { capabilities: {} });
    const touched = new Set<string>();
    const spy = {
      attach: (host: object) =>
        catalog.attach(
          new Proxy(host, {
            get(target, key, receiver) {
              if (typeof key === "string") touched.add(key);
              return Reflect.get(target, key, receiver) as unknown;
            },
          }) as never,
        ),
    };
    const attached = attachSkills(spy, server as never);
    expect([...touched].filter((k) => !(SKILLS_HOST_MEMBERS_USED as readonly string[]).includes(k))).toEqual([]);
    expect(attached).toMatchObject({ uriTemplate: "skill://{+path}", name: "io.modelcontextprotocol/skills" });
    expect(server.getCapabilities().extensions).toEqual({ "io.modelcontextprotocol/skills": { directoryRead: true } });
    expect(attached.owns("skill://review/SKILL.md")).toBe(true);
    expect(attached.owns("notes://x")).toBe(false);
    const read = await attached.read("skill://review/references/GUIDE.md", {} as never);
    expect(read.contents[0]).toMatchObject({ uri: "skill://review/references/GUIDE.md", text: TWO_SKILLS["review/references/GUIDE.md"] });
    expect((await attached.list({} as never)).map((r) => r.uri)).toEqual(["skill://deploy/SKILL.md", "skill://review/SKILL.md"]);
  });
});
