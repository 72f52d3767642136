/**
 * @module cli/cli-options
 * `mergeCliOptions(...)`: combine the option objects that `spec.cliOptions()`,
 * `approvals.cliOptions()`, `hooks.cliOptions()` and `asCodexMcp(spec)` return,
 * without one spread silently dropping another's MCP server or token.
 */
import { OptionsError } from "../errors/options.error.js";

/** List-valued options: concatenated in order, duplicates dropped. */
const LISTS = new Set(["mcpConfig", "allowedTools", "disallowedTools", "enable", "disable", "extraArgs"]);
/** Object-valued options: merged key by key; one key with two different values is a conflict. */
const MAPS = new Set(["env", "config"]);

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Merge option objects for `ClaudeCliCognition` / `CodexCliCognition`:
 * `mcpConfig`, `allowedTools`, `disallowedTools`, `enable`, `disable` and
 * `extraArgs` are concatenated (in argument order, duplicates dropped); `env`
 * and `config` are merged key by key; every other option must agree.
 * Throws `OptionsError` (`where` `"mergeCliOptions"`) naming the option when two parts set it
 * (or one `env`/`config` key) to different values, rather than letting the
 * later spread win: a lost `mcpConfig` entry or token is a run without its
 * tools.
 *
 * @example new ClaudeCliCognition({ model, ...mergeCliOptions(spec.cliOptions(), approvals.cliOptions(), hooks.cliOptions()) })
 */
export function mergeCliOptions<T extends object>(...parts: readonly T[]): T {
  const out: Record<string, unknown> = {};
  for (const part of parts) {
    for (const [key, value] of Object.entries(part ?? {})) {
      if (value === undefined) continue;
      const prev = out[key];
      if (LISTS.has(key)) {
        const list = [...((prev as unknown[] | undefined) ?? []), ...(typeof value === "string" ? [value] : (value as unknown[]))];
        out[key] = list.filter((v, i) => list.findIndex((w) => same(v, w)) === i);
      } else if (MAPS.has(key)) {
        const merged: Record<string, unknown> = { ...((prev as Record<string, unknown> | undefined) ?? {}) };
        for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
          if (k in merged && !same(merged[k], v)) {
            throw new OptionsError(
              "mergeCliOptions",
              key,
              `mergeCliOptions: two parts set ${key}.${k} to different values; choose one before merging`,
            );
          }
          merged[k] = v;
        }
        out[key] = merged;
      } else {
        if (prev !== undefined && !same(prev, value)) {
          throw new OptionsError(
            "mergeCliOptions",
            key,
            `mergeCliOptions: two parts set '${key}' to different values (${JSON.stringify(prev)} and ` +
              `${JSON.stringify(value)}); choose one before merging`,
          );
        }
        out[key] = value;
      }
    }
  }
  return out as T;
}
