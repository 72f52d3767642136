/**
 * @module test/cli/claude-skills-terminal.test
 * Whether the pinned Claude Code (2.1.332) reads a served module's skills in
 * its interactive terminal, the entrypoint where its extensions are on (`-p`
 * never sends `skills/list`): the package's own served module with a skills
 * folder (`serveRegistry(..., { skills })`), behind the kit's wire-log proxy
 * (what the CLI really sent), driven in a pseudo-terminal against the fake
 * Messages API.
 *
 * Measured here (2026-12-06), asserted below: the module offers the skills
 * extension (`io.modelcontextprotocol/skills` in `server/discover`) and lists
 * `skill://<name>/SKILL.md` in `resources/list`; Claude Code declares only
 * the tasks extension, sends `server/discover`, `subscriptions/listen`,
 * `resources/list` and `tools/list` and nothing else — no `skills/list`, no
 * `skills/get`, no `resources/read` of a `skill://` resource; the model's
 * first request names no skill; typing `/engine` shows `No commands match
 * "/engine"`. So the pinned binary does not list `/<server>:<skill>` for a
 * served module: this test fails the day it starts asking.
 */
import { describe, expect, it } from "vitest";
import { tool } from "../../src/index.js";
import { serveRegistry } from "../../src/mcp/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { skillsFolder } from "../helpers/skills-folder.js";
import { ClaudeTerminal, mcpConfigFile } from "./kit/claude-terminal.js";
import { until } from "../helpers/wait.js";
import { FakeAnthropic } from "./kit/fake-anthropic.js";
import { Hermetic, processesWithHome } from "./kit/hermetic.js";
import { WireLogProxy } from "./kit/wire-log-proxy.js";

const SKILLS = "io.modelcontextprotocol/skills";

describe("Claude Code 2.1.332 and a served module's skills in its interactive terminal (real binary)", { timeout: 60_000 }, () => {
  it("the module offers its skills; Claude Code never asks for them (no skills/list, skills/get or skill:// read) and lists no /engine:<skill> command", async () => {
    await using h = Hermetic.create();
    const folder = skillsFolder();
    try {
      const hello = tool({ name: "hello", description: "Say hello.", sideEffecting: false }, () => "hello");
      await using spec = await serveRegistry([hello], { name: "engine", ctx: makeTestCtx(), skills: folder.dir });
      await spec.start();
      await using proxy = await WireLogProxy.start(spec.url!);
      await using api = await FakeAnthropic.start(() => ({ text: "done" }));
      await using terminal = ClaudeTerminal.start(h, api, {
        mcpConfig: mcpConfigFile(h, "engine", proxy.url, spec.authHeaders),
        allowedTools: ["mcp__engine__hello"],
        prompt: "say hi",
      });
      await until(
        () => api.messageRequests.length >= 1 && proxy.log.some((r) => r.method === "tools/list" && r.answer !== undefined),
        "the model's first request and the tools listed",
        50_000,
      );
      // What the module offered.
      const discover = proxy.log.find((r) => r.method === "server/discover");
      expect(discover?.answer).toContain(`"${SKILLS}"`);
      expect(proxy.log.find((r) => r.method === "resources/list")?.answer).toContain("skill://review/SKILL.md");
      // What Claude Code declared, and (typing a command, a window for it to ask) what it asked.
      expect(JSON.stringify(discover?.params)).not.toContain(SKILLS);
      const before = terminal.screen().length;
      terminal.type("/engine");
      await until(() => terminal.screen().slice(before).includes('No commands match "/engine"'), "the command menu's answer", 10_000);
      // Absence needs a window: 2 s after the menu answered.
      await new Promise((r) => setTimeout(r, 2000));
      const asked = proxy.log.filter(
        (r) => r.method.startsWith("skills/") || (r.method === "resources/read" && String(r.params?.uri).startsWith("skill://")),
      );
      expect(asked.map((r) => r.method)).toEqual([]);
      expect(new Set(proxy.log.map((r) => r.method))).toEqual(
        new Set(["server/discover", "subscriptions/listen", "resources/list", "tools/list"]),
      );
      expect(JSON.stringify(api.messageRequests[0])).not.toMatch(/engine:(review|deploy)/);
      await terminal[Symbol.asyncDispose]();
      expect(processesWithHome(h.home)).toEqual([]);
    } finally {
      folder.close();
    }
  });
});
