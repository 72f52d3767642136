/**
 * @module test/cli/kit/hermetic
 * Hermetic CLI runs: a temporary HOME, CODEX_HOME, TMPDIR and an empty cwd
 * under os.tmpdir() (prefix `agentkit-`), a clean environment that reaches
 * nothing off the machine and fails fast, and the paths of the real binaries.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TomlValue } from "../../../src/cli/index.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** The real `claude` binary (node_modules/.bin/claude -> the native executable). */
export const CLAUDE_BIN = join(ROOT, "node_modules/.bin/claude");

const CODEX_TRIPLES: Record<string, string> = {
  "linux-x64": "@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl",
  "linux-arm64": "@openai/codex-linux-arm64/vendor/aarch64-unknown-linux-musl",
  "darwin-arm64": "@openai/codex-darwin-arm64/vendor/aarch64-apple-darwin",
  "darwin-x64": "@openai/codex-darwin-x64/vendor/x86_64-apple-darwin",
};

/** The native `codex` binary (spawned directly, not through its node wrapper or npx). */
export const CODEX_BIN = join(ROOT, "node_modules", CODEX_TRIPLES[`${process.platform}-${process.arch}`] ?? "unsupported", "bin/codex");

if (!existsSync(CLAUDE_BIN)) throw new Error(`the claude binary is missing at ${CLAUDE_BIN}; npm install @anthropic-ai/claude-code`);
if (!existsSync(CODEX_BIN)) throw new Error(`the codex binary is missing at ${CODEX_BIN}; npm install @openai/codex`);

/**
 * Test timeout for files that run the real binaries: above every CLI deadline
 * the kit sets (`RUN_TIMEOUT_MS`, at most two runs per test), so vitest never
 * abandons a test whose CLI is still running.
 */
export const E2E_TIMEOUT_MS = 120_000;
/** The deadline the kit gives each CLI run. */
export const RUN_TIMEOUT_MS = 45_000;

/** The suite's env marker (test/global-setup.ts), carried into every child so a leftover process is caught. */
const MARK = "AGENTKIT_TEST_RUN";

/** One hermetic sandbox; `await using h = Hermetic.create()`. */
export class Hermetic implements AsyncDisposable {
  readonly root: string;
  readonly home: string;
  readonly codexHome: string;
  /** An empty working directory for the CLI. */
  readonly cwd: string;
  readonly tmp: string;

  private constructor() {
    this.root = mkdtempSync(join(tmpdir(), "agentkit-cli-"));
    this.home = join(this.root, "home");
    this.codexHome = join(this.home, ".codex");
    this.cwd = join(this.root, "work");
    this.tmp = join(this.root, "tmp");
    for (const d of [this.home, this.codexHome, this.cwd, this.tmp]) mkdirSync(d, { recursive: true });
  }

  static create(): Hermetic {
    return new Hermetic();
  }

  /** The base of both CLIs' environments: PATH, HOME, TMPDIR, TERM and the suite marker; nothing else. */
  baseEnv(): Record<string, string> {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: this.home,
      TMPDIR: this.tmp,
      TERM: "dumb",
      LANG: "C.UTF-8",
    };
    if (process.env[MARK]) env[MARK] = process.env[MARK]!;
    return env;
  }

  /** Claude's environment against a fake Messages API at `apiUrl`: no telemetry, no update checks, no retries. */
  claudeEnv(apiUrl: string): Record<string, string> {
    return {
      ...this.baseEnv(),
      ANTHROPIC_BASE_URL: apiUrl,
      ANTHROPIC_API_KEY: "dummy",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      CLAUDE_CODE_MAX_RETRIES: "0",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_ERROR_REPORTING: "1",
      DISABLE_BUG_COMMAND: "1",
      MCP_CONNECTION_NONBLOCKING: "0",
    };
  }

  /** Codex's environment: CODEX_HOME plus the fake provider's key variable. */
  codexEnv(): Record<string, string> {
    return { ...this.baseEnv(), CODEX_HOME: this.codexHome, FAKE_OPENAI_KEY: "dummy" };
  }

  async [Symbol.asyncDispose](): Promise<void> {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/**
 * Codex config for a fake Responses API at `apiUrl` (`.../v1`): a custom
 * provider with retries 0, no analytics, no plugins, and no unbounded
 * reconnect loop, so a broken fake fails in a second.
 */
export function codexFakeProvider(apiUrl: string): Record<string, TomlValue> {
  return {
    model_provider: "fake",
    "model_providers.fake.name": "fake",
    "model_providers.fake.base_url": `${apiUrl}/v1`,
    "model_providers.fake.wire_api": "responses",
    "model_providers.fake.env_key": "FAKE_OPENAI_KEY",
    "model_providers.fake.request_max_retries": 0,
    "model_providers.fake.stream_max_retries": 0,
    "analytics.enabled": false,
    check_for_update_on_startup: false,
  };
}

/** Arguments every hermetic Codex run adds. */
export const CODEX_HERMETIC_ARGS = ["--disable", "plugins", "--disable", "unbounded_connection_retries"] as const;

/** Live processes (not zombies) whose environment has `HOME=<home>`: what a hermetic run left behind. */
export function processesWithHome(home: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(`HOME=${home}`)) continue;
      const state = readFileSync(`/proc/${pid}/stat`, "latin1").split(") ")[1]?.[0];
      if (state !== "Z") found.push(`${pid}: ${readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").join(" ").slice(0, 120)}`);
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}
