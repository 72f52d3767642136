/**
 * @module cli/hook-settings
 * `hookSettings(...)`: a Claude settings document whose `PreToolUse` hook
 * runs the compiled `cli/hook-client` program, which calls back into this
 * process's `HookServer` over the loopback listener, so agentkit's gate and
 * audit see the CLI's built-in tool uses (Bash, Write, Read, ...) too, not
 * only the MCP tools it serves. Codex has no counterpart: `codex exec` runs
 * no hooks.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { shellQuote } from "../wire/shell-quote.js";
import { AgentkitError } from "../errors/agentkit.error.js";
import { checkOptions, checkOptionsObject, opt, type CheckedOptions } from "../options/option-checks.js";

/** The settings document `hookSettings` returns (pass it as `ClaudeCliCognition({ settings })`). */
export interface ClaudeHookSettings {
  readonly hooks: {
    readonly PreToolUse: readonly {
      readonly matcher: string;
      readonly hooks: readonly { readonly type: "command"; readonly command: string; readonly timeout: number }[];
    }[];
  };
}

/** What `hookSettings` reads from its server, declared once. */
const HOOK_SETTINGS_FIELDS = {
  url: opt.required(
    opt.that<string>((v) => typeof v === "string" && /^http:\/\/[^/\s]+\/\S*$/.test(v), "an http:// URL (a started HookServer's url)"),
    "pass a started HookServer: hookSettings(await HookServer.start())",
  ),
  tokenEnvVar: opt.required(
    opt.that<string>(
      (v) => typeof v === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(v),
      "an environment variable name (letters, digits, '_')",
    ),
    "the variable the CLI is given the token in (HookServer's tokenEnvVar)",
  ),
  matcher: opt.nonEmptyString('a tool-name pattern: a name, "A|B", or "*"'),
  timeoutMs: opt.timeoutMs(),
} as const;

/** The server's four fields: a plain object is checked whole (an unknown key refused); a `HookServer` by these members only. */
function serverFields(server: unknown): CheckedOptions<typeof HOOK_SETTINGS_FIELDS> {
  const where = "hookSettings";
  const s = checkOptionsObject(server, where, `{ ${Object.keys(HOOK_SETTINGS_FIELDS).join(", ")} }`);
  if (Object.getPrototypeOf(s) === Object.prototype || Object.getPrototypeOf(s) === null)
    return checkOptions(s, where, HOOK_SETTINGS_FIELDS);
  return checkOptions({ url: s.url, tokenEnvVar: s.tokenEnvVar, matcher: s.matcher, timeoutMs: s.timeoutMs }, where, HOOK_SETTINGS_FIELDS);
}

const CLIENT_MARGIN_MS = 5_000;
const FOREVER_S = 24 * 60 * 60;

/**
 * The absolute path of the compiled hook program: beside this module in the
 * built package (`dist/cli/hook-client.js`); run from the sources (vitest,
 * tsx), the build's copy. @throws AgentkitError (code `hook_server`) when it is not built.
 */
export function hookClientPath(): string {
  const beside = fileURLToPath(new URL("./hook-client.js", import.meta.url));
  if (existsSync(beside)) return beside;
  const built = fileURLToPath(new URL("../../dist/cli/hook-client.js", import.meta.url));
  if (existsSync(built)) return built;
  throw new AgentkitError("hook_server", `the hook program is not built: neither ${beside} nor ${built} exists — run npm run build`);
}

/**
 * The Claude settings document (for `--settings`) whose `PreToolUse` hook
 * posts every matching tool use to `server` and obeys its verdict. The hook
 * command is `process.execPath <hook-client.js> <url> <token variable> <limit>`
 * (the compiled `cli/hook-client` program, by its absolute path):
 * runnable by the CLI whatever its PATH, and failing closed (deny) when the
 * listener cannot be reached. The CLI must be given the token variable
 * (`server.cliOptions().env`). The hook's own timeout is set past the
 * server's deadline (a day when there is none), because a hook the CLI times
 * out is one it ignores: that would fail open.
 *
 * Note: `--bare` skips hooks, and `disableAllHooks` in a loaded settings
 * source turns them off; run with `settingSources: ""` for a hermetic run.
 *
 * @throws OptionsError when `server` is not an object, or a field is missing
 *   or of the wrong kind (no `url`: pass a started `HookServer`); for a plain
 *   object, also an unknown key. Naming what is accepted.
 * @throws AgentkitError (code `hook_server`) when the `HookServer` is not started, or the hook
 *   program is not built.
 */
export function hookSettings(server: {
  readonly url: string;
  readonly tokenEnvVar: string;
  readonly matcher: string;
  readonly timeoutMs: number | undefined;
}): ClaudeHookSettings {
  const fields = serverFields(server);
  const limitMs = fields.timeoutMs !== undefined ? fields.timeoutMs + CLIENT_MARGIN_MS : 0;
  const timeout = limitMs ? Math.ceil(limitMs / 1000) + 5 : FOREVER_S;
  const command = [process.execPath, hookClientPath(), fields.url, fields.tokenEnvVar, String(limitMs)].map(shellQuote).join(" ");
  return { hooks: { PreToolUse: [{ matcher: fields.matcher, hooks: [{ type: "command", command, timeout }] }] } };
}
