/**
 * @module cli/cli-option-rules
 * The option rules `ClaudeCliCognition` and `CodexCliCognition` share: how the
 * child process is spawned (binary, cwd, environment, deadline, extra argv).
 */
import { opt, type OptionRule } from "../options/option-checks.js";
import type { EnvOverlay } from "./cli-process.js";

/** A plain object (not null, not an array). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** An array of strings. */
function isStringList(v: unknown): v is readonly string[] {
  return Array.isArray(v) && v.every((x) => typeof x === "string");
}

/** A string, or an array of strings (`mcpConfig`, `settingSources`). */
export const stringOrList = (): OptionRule<string | readonly string[] | undefined> =>
  opt.that((v) => typeof v === "string" || isStringList(v), "a string or an array of strings");

/** The spawn options of both CLI cognitions: `model` first, then how the child runs. */
export const CLI_SPAWN_RULES = {
  binary: opt.string("a non-empty program name or path", true),
  cwd: opt.string("a non-empty directory path", true),
  env: opt.that<EnvOverlay>(
    (v) => isPlainObject(v) && Object.values(v).every((x) => x === undefined || typeof x === "string"),
    "an object of variable names to strings (undefined removes one)",
  ),
  inheritEnv: opt.boolean(),
  timeoutMs: opt.timeoutMs(),
  extraArgs: opt.stringArray(),
  resumePrompt: opt.string("a non-empty prompt", true),
} as const;

/** `model`, required; `hint` names what a good one looks like. */
export const modelRule = (hint: string): OptionRule<string> => opt.nonEmptyString(hint);
