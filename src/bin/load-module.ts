/**
 * @module bin/load-module
 * `agentkit serve <module-file>` and `agentkit host <module-file>`: import a built module file and pick its
 * `@McpServer` class.
 */
import { stat } from "node:fs/promises";
import { extname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { getMcpServerMetadata } from "../mcp/di/mcp-server.decorator.js";
import { errorLine } from "../util/format.js";
import { CliError, UsageError } from "./cli.error.js";

/** A module class (what `@McpServer` decorates). */
export type ModuleClass = abstract new (...args: never[]) => unknown;

/** The `@McpServer` class chosen from a module file. */
export interface ChosenModule {
  /** The decorated class. */
  readonly module: ModuleClass;
  /** The export it was found under (`default` for a default export). */
  readonly exportName: string;
  /** The absolute path of the file. */
  readonly path: string;
}

/**
 * Import `file` (resolved against `cwd`) as an ES module, by file URL
 * (`urlOf(path)`: `serve --watch` adds a generation to load a rebuild anew).
 *
 * @throws UsageError when the path does not exist, is a directory, or is
 *   TypeScript source (agentkit loads built JavaScript; tsx and friends drop
 *   the decorator metadata DI needs).
 * @throws CliError (runtime) when importing it fails; the message carries the module's own error.
 */
export async function importModuleFile(
  file: string,
  cwd = process.cwd(),
  urlOf: (path: string) => string = (p) => pathToFileURL(p).href,
  command = "serve",
): Promise<{ path: string; exports: Record<string, unknown> }> {
  const path = resolve(cwd, file);
  let info;
  try {
    info = await stat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : errorLine(err);
    throw new UsageError(
      `agentkit ${command}: cannot read module file '${file}' (${path}): ${why}. Pass the built .js file of an ` +
        `@McpServer module, e.g. dist/app.module.js`,
      { cause: err },
    );
  }
  if (info.isDirectory()) {
    throw new UsageError(
      `agentkit ${command}: '${file}' is a directory; pass the built .js file of an @McpServer module, e.g. dist/app.module.js`,
    );
  }
  const ext = extname(path);
  if (ext === ".ts" || ext === ".mts" || ext === ".cts" || ext === ".tsx") {
    throw new UsageError(
      `agentkit ${command}: '${file}' is TypeScript source; compile it with tsc (experimentalDecorators and ` +
        `emitDecoratorMetadata on) and pass the built .js file`,
    );
  }
  try {
    return { path, exports: (await import(urlOf(path))) as Record<string, unknown> };
  } catch (err) {
    throw new CliError(`agentkit ${command}: cannot load module file '${file}': ${errorLine(err)}`, 1, { cause: err });
  }
}

/**
 * Pick the `@McpServer` class among `exports`: the one named by `exportName`,
 * or the only decorated one. A class exported under two names counts once.
 *
 * @throws UsageError when `exportName` names no export or an undecorated one,
 *   when nothing is decorated, or when several are and none was chosen (the
 *   message lists them and says to pass `--export`).
 */
export function pickModule(
  file: string,
  path: string,
  exports: Record<string, unknown>,
  exportName?: string,
  command = "serve",
): ChosenModule {
  const decorated = new Map<ModuleClass, string>();
  for (const [name, value] of Object.entries(exports)) {
    if (getMcpServerMetadata(value) && !decorated.has(value as ModuleClass)) decorated.set(value as ModuleClass, name);
  }
  const names = [...decorated.values()];
  const listed = names.length ? names.join(", ") : "none";
  if (exportName !== undefined) {
    if (!(exportName in exports)) {
      throw new UsageError(
        `agentkit ${command}: module file '${file}' has no export '${exportName}'; its @McpServer exports are: ${listed}`,
      );
    }
    const value = exports[exportName];
    if (!getMcpServerMetadata(value)) {
      throw new UsageError(
        `agentkit ${command}: export '${exportName}' of '${file}' is not decorated with @McpServer; its @McpServer exports are: ${listed}`,
      );
    }
    return { module: value as ModuleClass, exportName, path };
  }
  if (decorated.size === 0) {
    const all = Object.keys(exports);
    throw new UsageError(
      `agentkit ${command}: module file '${file}' exports no @McpServer class (its exports: ` +
        `${all.length ? all.join(", ") : "none"}); decorate a module class with @McpServer({ name, tools }) and ` +
        `export it`,
    );
  }
  if (decorated.size > 1) {
    throw new UsageError(
      `agentkit ${command}: module file '${file}' exports ${decorated.size} @McpServer classes (${listed}); choose ` +
        `one with --export ${names[0]}`,
    );
  }
  const [[module, name]] = [...decorated.entries()];
  return { module: module!, exportName: name!, path };
}
