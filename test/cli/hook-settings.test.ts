/** @module test/cli/hook-settings.test */
import { shellQuote } from "../../src/wire/shell-quote.js";
import { hookClientPath } from "../../src/cli/hook-settings.js";
import { existsSync, readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent, OptionsError, type Asker } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { optionsError } from "../core/helpers.js";
import { ClaudeCliCognition, HookServer, hookSettings, type ClaudeCliOptions } from "../../src/cli/index.js";
import { FakeAnthropic } from "./kit/fake-anthropic.js";
import { hermeticClaude } from "./kit/cognitions.js";
import { E2E_TIMEOUT_MS, Hermetic } from "./kit/hermetic.js";

function claude(h: Hermetic, api: FakeAnthropic, hooks: HookServer, options: Partial<ClaudeCliOptions> = {}): ClaudeCliCognition {
  const { settings, env } = hooks.cliOptions();
  return hermeticClaude(h, api, { settings, env, ...options });
}

const bash = (command: string) => ({ toolUses: [{ name: "Bash", input: { command, description: "write a marker" } }] });

describe("hookSettings + HookServer against the real claude binary", { timeout: E2E_TIMEOUT_MS }, () => {
  it("a PreToolUse denial from this process stops the built-in tool", async () => {
    await using h = Hermetic.create();
    const ctx = makeTestCtx();
    await using hooks = await HookServer.start({ ctx, decide: (r) => ({ decision: "deny", reason: `no ${r.toolName} in this run` }) });
    await using api = await FakeAnthropic.start([bash("echo ran > marker.txt"), { text: "gave up" }]);
    const result = await new Agent({ name: "dev", cognition: claude(h, api, hooks, { allowedTools: ["Bash"] }) }).run(
      "write the marker",
      ctx,
    );
    expect(result.error).toBeUndefined();
    expect(result.output).toBe("gave up");
    expect(existsSync(join(h.cwd, "marker.txt"))).toBe(false);
    expect(hooks.seen).toMatchObject([
      { toolName: "Bash", toolInput: { command: "echo ran > marker.txt" }, decision: "deny", source: "asker", asked: true },
    ]);
    expect(api.toolResults()).toMatchObject([{ is_error: true, content: "PreToolUse:Bash hook error: no Bash in this run" }]);
    expect(result.details?.permissionDenials).toMatchObject([{ toolName: "Bash", toolInput: { command: "echo ran > marker.txt" } }]);
    expect(result.toolCalls).toMatchObject([{ name: "Bash", ok: false }]);
    // One engine: a decide policy is put to it as the Asker (actor "policy"), so its deny is source asker.
    expect(ctx.eventsNamed("hook.pre_tool_use")).toMatchObject([{ data: { tool: "Bash", decision: "deny", source: "asker" } }]);
    expect(ctx.eventsNamed("gate.check")).toMatchObject([
      {
        data: {
          tool: "Bash",
          via: "claude_hook",
          allowed: false,
          source: "asker",
          asked: true,
          kind: "reject",
          actor: "policy",
          reason: "no Bash in this run",
        },
      },
    ]);
  });

  it("audit only (no policy): the hook sees the call and the CLI's own rules decide", async () => {
    await using h = Hermetic.create();
    await using hooks = await HookServer.start();
    await using api = await FakeAnthropic.start([bash("echo ran > marker.txt"), { text: "done" }]);
    const result = await new Agent({ name: "dev", cognition: claude(h, api, hooks, { allowedTools: ["Bash"] }) }).run(
      "write the marker",
      makeTestCtx(),
    );
    expect(result.error).toBeUndefined();
    expect(readFileSync(join(h.cwd, "marker.txt"), "utf8")).toBe("ran\n");
    expect(hooks.seen).toMatchObject([{ toolName: "Bash", decision: "defer", source: null, asked: false }]);
  });

  it("an Asker's modify runs the tool with the edited input, even without allowedTools", async () => {
    await using h = Hermetic.create();
    const ctx = makeTestCtx();
    const asker: Asker = {
      ask: async () => ({ kind: "modify", actor: "ops", value: { command: "echo edited > marker.txt", description: "edited" } }),
    };
    await using hooks = await HookServer.start({ ctx, asker });
    await using api = await FakeAnthropic.start([bash("echo original > marker.txt"), { text: "done" }]);
    const result = await new Agent({ name: "dev", cognition: claude(h, api, hooks) }).run("write the marker", ctx);
    expect(result.error).toBeUndefined();
    expect(readFileSync(join(h.cwd, "marker.txt"), "utf8")).toBe("edited\n");
    expect(hooks.seen).toMatchObject([{ toolName: "Bash", decision: "allow", source: "asker", asked: true }]);
    expect(ctx.eventsNamed("gate.check")).toMatchObject([
      { data: { tool: "Bash", allowed: true, source: "asker", asked: true, kind: "modify", actor: "ops", via: "claude_hook" } },
    ]);
  });

  it("fails closed when the listener is gone", async () => {
    await using h = Hermetic.create();
    const hooks = await HookServer.start({ decide: () => ({ decision: "allow" }) });
    const opts = hooks.cliOptions();
    const url = hooks.url;
    await hooks.stop();
    await using api = await FakeAnthropic.start([bash("echo ran > marker.txt"), { text: "done" }]);
    const cognition = hermeticClaude(h, api, { ...opts, allowedTools: ["Bash"] });
    const result = await new Agent({ name: "dev", cognition }).run("write the marker", makeTestCtx());
    expect(existsSync(join(h.cwd, "marker.txt"))).toBe(false);
    expect(api.toolResults()[0]).toMatchObject({ is_error: true });
    expect(String(api.toolResults()[0]!.content)).toContain(`agentkit hook: could not reach the listener at ${url}`);
    expect(result.output).toBe("done");
  });

  it("builds the settings document: one PreToolUse command hook, no token in it", async () => {
    await using hooks = await HookServer.start({ matcher: "Bash|Write", timeoutMs: 30_000 });
    const doc = hookSettings(hooks);
    const entry = doc.hooks.PreToolUse[0]!;
    expect(entry.matcher).toBe("Bash|Write");
    expect(entry.hooks[0]!.type).toBe("command");
    expect(entry.hooks[0]!.timeout).toBe(40);
    // The compiled hook program, by its path: no program text in the settings document.
    expect(entry.hooks[0]!.command).toBe(
      [process.execPath, hookClientPath(), hooks.url, hooks.tokenEnvVar, "35000"].map(shellQuote).join(" "),
    );
    expect(hookClientPath()).toMatch(/\/dist\/cli\/hook-client\.js$/);
    const token = hooks.authHeaders.Authorization!.slice("Bearer ".length);
    expect(JSON.stringify(doc)).not.toContain(token);
    expect(hooks.cliOptions().env).toEqual({ [hooks.tokenEnvVar]: token });
  });
});

describe("hookSettings checks what it is given by one declared spec", () => {
  const fields = { url: "http://127.0.0.1:4000/hook/x", tokenEnvVar: "AGENTKIT_HOOK_TOKEN", matcher: "*", timeoutMs: undefined };

  it("refuses {} (no URL), an unknown key, a wrong-kind value and null by name, as OptionsError", () => {
    expect(() => hookSettings({} as never)).toThrow(
      optionsError("hookSettings: 'url' is required (pass a started HookServer: hookSettings(await HookServer.start()))"),
    );
    expect(() => hookSettings({ ...fields, matchr: "Bash" } as never)).toThrow(
      optionsError("hookSettings: unknown option 'matchr'. Accepted options: url, tokenEnvVar, matcher, timeoutMs"),
    );
    expect(() => hookSettings({ ...fields, url: "ftp://x" })).toThrow(
      optionsError(`hookSettings: 'url' must be an http:// URL (a started HookServer's url), got string "ftp://x"`),
    );
    expect(() => hookSettings({ ...fields, tokenEnvVar: "MY TOKEN" })).toThrow(
      optionsError(`hookSettings: 'tokenEnvVar' must be an environment variable name (letters, digits, '_'), got string "MY TOKEN"`),
    );
    expect(() => hookSettings({ ...fields, timeoutMs: -1 })).toThrow(optionsError());
    expect(() => hookSettings(null as never)).toThrow(
      optionsError("hookSettings: options must be an object { url, tokenEnvVar, matcher, timeoutMs }, got null"),
    );
  });

  it("(control) a plain object with the four fields gives the command hook", () => {
    const doc = hookSettings({ ...fields, timeoutMs: 1000 });
    expect(doc.hooks.PreToolUse[0]!.hooks[0]!.command).toBe(
      [process.execPath, hookClientPath(), fields.url, fields.tokenEnvVar, "6000"].map(shellQuote).join(" "),
    );
  });
});

describe("HookServer over HTTP (no CLI)", () => {
  const body = (tool = "Bash") =>
    JSON.stringify({ hook_event_name: "PreToolUse", tool_name: tool, tool_input: { command: "ls" }, tool_use_id: "toolu_1" });
  const post = (url: string, headers: Record<string, string>, data = body()) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(url, { method: "POST", headers: { "content-type": "application/json", ...headers } }, (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on("error", reject);
      req.end(data);
    });

  it("refuses a wrong token (401) and a foreign Host (403) before deciding anything", async () => {
    await using hooks = await HookServer.start({ decide: () => ({ decision: "allow" }) });
    const wrong = await post(hooks.url, { authorization: "Bearer nope" });
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.text).error).toBe("Unauthorized: the bearer token does not match this listener's token");
    const foreign = await post(hooks.url, { ...hooks.authHeaders, host: "evil.example:80" });
    expect(foreign.status).toBe(403);
    expect(hooks.seen).toEqual([]);
  });

  it("a policy that throws, or misses its deadline, denies with the reason", async () => {
    await using throwing = await HookServer.start({
      decide: () => {
        throw new Error("policy bug");
      },
    });
    const a = await post(throwing.url, { ...throwing.authHeaders });
    expect(JSON.parse(a.text)).toEqual({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: "approval for 'Bash' failed: the hook policy threw Error: policy bug; denied (not a policy decision)",
      },
    });
    await using slow = await HookServer.start({ timeoutMs: 50, asker: { ask: () => new Promise(() => {}) } });
    const b = await post(slow.url, { ...slow.authHeaders });
    expect(JSON.parse(b.text).hookSpecificOutput.permissionDecisionReason).toBe(
      "approval for 'Bash' timed out: nobody answered within 0.05s; denied (a timeout, not a refusal)",
    );
    expect(slow.seen).toMatchObject([{ decision: "deny", source: "timeout", asked: true }]);
  });

  it("refuses bad options at construction and a url before start", () => {
    expect(() => new HookServer({ timeoutMs: -1 })).toThrow(
      new OptionsError(
        "HookServer",
        "timeoutMs",
        "HookServer: timeoutMs must be a positive number of milliseconds up to 2147483647, or left unset to wait forever; got number -1",
      ),
    );
    expect(() => new HookServer({ timeoutMs: -1 })).toThrow(OptionsError);
    expect(() => new HookServer({ matcher: "" })).toThrow(
      `HookServer: 'matcher' must be a non-empty tool-name pattern (a name, "A|B", or "*"), got string ""`,
    );
    expect(() => new HookServer({ port: 4000 } as never)).toThrow(
      "HookServer: unknown option 'port'. Accepted options: ctx, asker, decide, timeoutMs, matcher, auditPath",
    );
    expect(() => new HookServer().url).toThrow("HookServer is not started — use await HookServer.start(...) (or await server.start())");
  });
});

describe("HookServer: the question leaves with the hook's request", () => {
  it("the CLI's hook request closes while the Asker waits: its signal aborts at once, the record says the hook stopped waiting (source error)", async () => {
    let handed: { signal: AbortSignal; questionId: string } | undefined;
    const asker: Asker = { ask: (_q, options) => ((handed = options), new Promise(() => {})) };
    await using hooks = await HookServer.start({ asker });
    const body = JSON.stringify({
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "make deploy" },
      tool_use_id: "toolu_gone",
    });
    const req = httpRequest(hooks.url, { method: "POST", headers: { "content-type": "application/json", ...hooks.authHeaders } });
    req.on("error", () => undefined);
    req.end(body);
    await expect.poll(() => handed !== undefined).toBe(true);
    expect(handed!.signal.aborted).toBe(false);
    req.destroy();
    await expect.poll(() => handed!.signal.aborted, { timeout: 1000 }).toBe(true);
    await expect.poll(() => hooks.decisions.length, { timeout: 1000 }).toBe(1);
    expect(hooks.decisions[0]).toMatchObject({
      tool: "Bash",
      id: "toolu_gone",
      via: "claude_hook",
      allowed: false,
      source: "error",
      asked: true,
      questionId: handed!.questionId,
    });
    expect(hooks.decisions[0]!.reason).toContain("the Claude CLI's hook stopped waiting (its request closed) before anyone answered");
    expect(hooks.seen[0]).toMatchObject({ questionId: handed!.questionId, record: hooks.decisions[0] });
  });
});
