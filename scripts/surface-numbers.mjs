#!/usr/bin/env node
// @ts-check
/**
 * @module surface-numbers
 * Prints the numbers the core's size is judged by (issue #28's closing note):
 * exports per entry point (read by the type checker from src/, so type-only
 * exports count), error classes (classes under src/ that extend another
 * `…Error` class), functions over 45 lines (declarations, methods, accessors,
 * constructors, arrows and function expressions, each counted on its own
 * lines) and lines in src/. Run from the package root: `node scripts/surface-numbers.mjs`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const ROOT = process.cwd();
/** The entry points of package.json's `exports` map, as their sources. */
const ENTRIES = [
  "src/index.ts",
  "src/testing/index.ts",
  "src/mcp/index.ts",
  "src/cli/index.ts",
  "src/models/index.ts",
  "src/askers/index.ts",
  "src/otel/index.ts",
  "src/express/index.ts",
];
const LONG = 45;

/**
 * Every .ts file under a folder.
 * @param {string} dir
 * @returns {string[]}
 */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

const files = sources(join(ROOT, "src"));
const entries = ENTRIES.map((entry) => join(ROOT, entry)).filter((entry) => files.includes(entry));
const program = ts.createProgram(entries, {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  strict: true,
  noEmit: true,
  skipLibCheck: true,
});
const checker = program.getTypeChecker();

console.log("exports per entry point");
let total = 0;
for (const entry of entries) {
  const file = program.getSourceFile(entry);
  const symbol = file && checker.getSymbolAtLocation(file);
  const count = symbol ? checker.getExportsOfModule(symbol).length : 0;
  total += count;
  console.log(`  ${relative(ROOT, entry).padEnd(24)} ${String(count).padStart(4)}`);
}
console.log(`  ${"all".padEnd(24)} ${String(total).padStart(4)}`);

let errorClasses = 0;
/** @type {string[]} */
const long = [];
let lines = 0;
for (const path of files) {
  const text = readFileSync(path, "utf8");
  lines += text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true);
  /** @param {ts.Node} node */
  const visit = (node) => {
    if (
      ts.isClassDeclaration(node) &&
      node.heritageClauses?.some((clause) => clause.types.some((type) => /Error$/.test(type.expression.getText(source))))
    )
      errorClasses += 1;
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const size = end - start + 1;
      if (size > LONG) {
        const name = node.name ? node.name.getText(source) : "(anonymous)";
        long.push(`${relative(ROOT, path)}:${start + 1} ${name} ${size}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
console.log(`error classes            ${String(errorClasses).padStart(4)}`);
console.log(`functions over ${LONG} lines  ${String(long.length).padStart(4)}`);
for (const line of long) console.log(`  ${line}`);
console.log(`lines in src/            ${String(lines).padStart(4)}  (${files.length} files)`);
