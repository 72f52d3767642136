/**
 * @module test/core/surface
 * The export names of an entry point as the compiler sees them, types
 * included: values by name, type-only exports (a class exported with
 * `export type` among them) as `type Name`, sorted.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The entry points of package.json's `exports` map (`arc-agentkit`, `arc-agentkit/mcp`, ...), as their sources under src/. */
export function entryPoints(): { name: string; source: string }[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { exports: Record<string, unknown> };
  return Object.entries(pkg.exports).flatMap(([key, target]) => {
    const types = (target as { types?: unknown }).types;
    if (typeof types !== "string") return [];
    const name = key === "." ? "arc-agentkit" : `arc-agentkit${key.slice(1)}`;
    return [{ name, source: join(ROOT, types.replace(/^\.\/dist\//, "src/").replace(/\.d\.ts$/, ".ts")) }];
  });
}

/** One type-checking program over `entries` (.ts files), with the options every surface test reads them by. */
export function surfaceProgram(entries: readonly string[]): ts.Program {
  return ts.createProgram(entries, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    experimentalDecorators: true,
    skipLibCheck: true,
    noEmit: true,
    types: ["node"],
  });
}

/** Sorted export names of `entry` (a .ts file), type-only ones prefixed with `type `. */
export function declaredExports(entry: string): string[] {
  const program = surfaceProgram([entry]);
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(entry);
  if (!file) throw new Error(`no source file ${entry}`);
  const moduleSymbol = checker.getSymbolAtLocation(file);
  if (!moduleSymbol) throw new Error(`${entry} is not a module`);
  return checker
    .getExportsOfModule(moduleSymbol)
    .map((s) => {
      const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
      // `export type { FunctionTool }` of a class is a type here: nothing to call or construct.
      const typeOnly = s.declarations?.some((d) => ts.isExportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly)) ?? false;
      return target.flags & ts.SymbolFlags.Value && !typeOnly ? s.name : `type ${s.name}`;
    })
    .sort((a, b) => {
      // Case-insensitive by name (locale-free, so the order is the same everywhere), then by code point.
      const [ka, kb] = [a.replace(/^type /, "").toLowerCase(), b.replace(/^type /, "").toLowerCase()];
      return ka < kb ? -1 : ka > kb ? 1 : a < b ? -1 : a > b ? 1 : 0;
    });
}
