/**
 * @module test/cli/kit/cognitions
 * The two cognitions, set up for a hermetic run against a fake model API.
 */
import { ClaudeCliCognition, CodexCliCognition, type ClaudeCliOptions, type CodexCliOptions } from "../../../src/cli/index.js";
import type { FakeAnthropic } from "./fake-anthropic.js";
import type { FakeOpenAI } from "./fake-openai.js";
import { CLAUDE_BIN, CODEX_BIN, CODEX_HERMETIC_ARGS, codexFakeProvider, RUN_TIMEOUT_MS, type Hermetic } from "./hermetic.js";

/**
 * A `ClaudeCliCognition` on the real binary in `h`, talking to `api`: clean
 * env (the overlay's `env` is merged over it), no ambient settings, strict MCP
 * config, a 45 s deadline. `options` win.
 */
export function hermeticClaude(h: Hermetic, api: FakeAnthropic, options: Partial<ClaudeCliOptions> = {}): ClaudeCliCognition {
  const { env, ...rest } = options;
  return new ClaudeCliCognition({
    model: "fake-model",
    binary: CLAUDE_BIN,
    cwd: h.cwd,
    inheritEnv: false,
    settingSources: "",
    strictMcpConfig: true,
    timeoutMs: RUN_TIMEOUT_MS,
    ...rest,
    env: { ...h.claudeEnv(api.url), ...env },
  });
}

/**
 * A `CodexCliCognition` on the real binary in `h`, talking to `api`: clean
 * env, the fake provider (retries 0), no analytics/plugins/unbounded retries,
 * read-only sandbox, a 45 s deadline. `config` and `env` merge over the base.
 */
export function hermeticCodex(h: Hermetic, api: FakeOpenAI, options: Partial<CodexCliOptions> = {}): CodexCliCognition {
  const { config, env, ...rest } = options;
  return new CodexCliCognition({
    model: "fake-model",
    binary: CODEX_BIN,
    cwd: h.cwd,
    inheritEnv: false,
    sandbox: "read-only",
    timeoutMs: RUN_TIMEOUT_MS,
    extraArgs: [...CODEX_HERMETIC_ARGS],
    ...rest,
    config: { ...codexFakeProvider(api.url), ...config },
    env: { ...h.codexEnv(), ...env },
  });
}
