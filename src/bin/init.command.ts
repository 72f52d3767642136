/**
 * @module bin/init.command
 * `agentkit init [dir]`: write a new project (package.json with the peers, the
 * documented tsconfig, one `@Tool`, one `@McpServer` module, one vitest test,
 * a README line per command) into a new or empty directory.
 */
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, resolve } from "node:path";
import { visible } from "../util/visible-text.js";
import { shellQuote } from "../wire/shell-quote.js";
import { flag, parseCommandLine, strayArgument, stringOption, type OptionTable } from "./args.js";
import { UsageError } from "./cli.error.js";
import { initFiles, type InitVersions } from "./init-files.js";

const OPTIONS: OptionTable = {
  package: { type: "string" },
  verbose: { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

/** `agentkit init --help`. */
export const INIT_HELP = `Usage: agentkit init [dir] [--package <tarball or folder>]

Writes a new project into dir (default: the current directory), which must be
new or empty: package.json (arc-agentkit, @modelcontextprotocol/client,
@modelcontextprotocol/server; typescript, @types/node, vite, vitest) with
TypeScript 7, the @types/node of the Node running init, and the scripts build,
test, serve, watch and dev; tsconfig.json (decorator metadata on, skipLibCheck
false); src/greet.tool.ts (one @Tool), src/greeter.module.ts (one @McpServer
module), src/greeter.test.ts (through an in-memory client), README.md.

  --package <path>   depend on this package from a local file instead of the
                     registry: a tarball made by \`npm pack\` (.tgz) or the
                     package's folder (written as a file: dependency)

Then:
  cd dir && npm install && npm run build && npm test
  npm run serve      # agentkit serve dist/greeter.module.js

Exit codes: 0 written, 2 dir is not empty (or not a directory) or --package is
not a tarball or folder, 1 it could not be written.
`;

/** npm's rule for a package name, so the written package.json installs. */
function projectName(dir: string): string {
  const name = basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[._-]+/, "")
    .slice(0, 100);
  return name || "agentkit-project";
}

/** Why `dir` cannot take a new project, or undefined when it is missing or an empty directory. */
function notEmpty(dir: string): string | undefined {
  let entries: string[];
  try {
    if (!statSync(dir).isDirectory()) return `'${visible(dir)}' is a file, not a directory`;
    entries = readdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? undefined : `'${visible(dir)}' cannot be read (${code ?? String(err)})`;
  }
  if (entries.length === 0) return undefined;
  const shown = entries
    .sort()
    .slice(0, 3)
    .map((e) => `'${visible(e)}'`)
    .join(", ");
  return (
    `'${visible(dir)}' is not empty (${entries.length} entr${entries.length === 1 ? "y" : "ies"}: ` +
    `${shown}${entries.length > 3 ? ", …" : ""})`
  );
}

/** The `file:` dependency for `--package <path>`: an `npm pack` tarball or the package's folder, refused (exit 2) otherwise. */
function localPackage(path: string): string {
  const full = resolve(path);
  const refuse = (why: string): never => {
    throw new UsageError(
      `agentkit init: --package '${visible(full)}' ${why}; give the path of a packed arc-agentkit tarball (npm pack) or of its folder, nothing was written`,
    );
  };
  let isDirectory: boolean;
  try {
    isDirectory = statSync(full).isDirectory();
  } catch {
    return refuse("does not exist");
  }
  if (isDirectory ? !existsSync(join(full, "package.json")) : !full.endsWith(".tgz"))
    refuse("is neither a .tgz file nor a folder with a package.json");
  return `file:${full}`;
}

/**
 * Run `agentkit init` with `argv` (the words after `init`); resolves with 0
 * once every file is written. Nothing is written into a directory that
 * holds anything (an existing project is never overwritten).
 *
 * @throws UsageError (exit 2) for a bad command line, or a `dir` that is a file or not empty.
 */
export async function initCommand(argv: readonly string[]): Promise<number> {
  const line = parseCommandLine("init", argv, OPTIONS);
  if (flag(line, "help")) {
    process.stdout.write(INIT_HELP);
    return 0;
  }
  const [target = ".", extra] = line.positionals;
  if (extra !== undefined) throw strayArgument("init", 2, "give one directory: agentkit init [dir]");
  const dir = resolve(target);
  const problem = notEmpty(dir);
  if (problem)
    throw new UsageError(`agentkit init: ${problem}; give a new or empty directory (agentkit init my-agent), nothing was written`);
  const packagePath = stringOption(line, "package");
  const local = packagePath === undefined ? undefined : localPackage(packagePath);
  const pkg = createRequire(import.meta.url)("../../package.json") as {
    version: string;
    peerDependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  const versions: InitVersions = {
    agentkit: pkg.version,
    ...(local && { agentkitSpec: local }),
    peerDependencies: pkg.peerDependencies,
    devDependencies: pkg.devDependencies,
    nodeMajor: Number(process.versions.node.split(".")[0]),
  };
  const files = initFiles(projectName(dir), versions);
  for (const [path, text] of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text, { flag: "wx" });
  }
  process.stdout.write(
    `agentkit init: wrote ${files.size} files into ${visible(dir)}\n  cd ${shellQuote(visible(target))} && npm ` +
      `install && npm run build && npm test\n  npm run serve\n`,
  );
  return 0;
}
