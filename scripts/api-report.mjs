#!/usr/bin/env node
// @ts-check
/**
 * @module api-report
 * The public surface on purpose: one report per entry point of package.json's
 * `exports` map, `api/<entry>.api.md`, listing every export by name with its
 * kind and signature, as the type checker reads it from src/ (no build needed).
 *
 *   node scripts/api-report.mjs           write the reports (after a reviewed change of the surface)
 *   node scripts/api-report.mjs --check   lint: fail, naming each entry, when a report is stale or missing
 *
 * A name the MCP SDK packages also export carries a line with the reason it
 * is ours, from the paragraph of its JSDoc that starts `MCP SDK:`; without
 * one the script fails, naming it.
 *
 * A private or protected member is not the user's: members and statics so
 * marked are left out, a private constructor reads `private constructor` (the
 * class is built by its static factory; its parameters are internal), a
 * protected one is marked `protected`, and a class exported as a type shows
 * its instance members only (it has no constructor or statics to reach).
 *
 * `--dir <path>` reads and writes the reports in another folder (the test of
 * the check uses it). A changed report is a reviewed decision: it shows in the
 * diff beside the change of code that made it.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

const ROOT = process.cwd();
const args = process.argv.slice(2);
const check = args.includes("--check");
const dirAt = args.indexOf("--dir");
const DIR = dirAt >= 0 && args[dirAt + 1] ? args[dirAt + 1] : join(ROOT, "api");

/**
 * The entry points: each `exports` key with `types` under dist/, as its source under src/.
 * @returns {{ name: string, source: string }[]}
 */

/**
 * A type's source text on one line, the same however the formatter wrapped it:
 * whitespace runs become one space, none just inside `<` and `>`, and no
 * leading `|` of a union written one member per line.
 */
function oneLineType(text) {
  return text
    .replace(/\s+/g, " ")
    .replace(/< /g, "<")
    .replace(/ >/g, ">")
    .replace(/^\| /, "")
    .replace(/(<|, )\| /g, "$1");
}

function entryPoints() {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  return Object.entries(pkg.exports)
    .filter(([, target]) => typeof target === "object" && typeof target.types === "string")
    .map(([key, target]) => ({
      name: key === "." ? "arc-agentkit" : `arc-agentkit${key.slice(1)}`,
      source: join(ROOT, target.types.replace(/^\.\/dist\//, "src/").replace(/\.d\.ts$/, ".ts")),
    }));
}

/**
 * True for a declaration in this package's src/.
 * @param {ts.Node} node
 * @returns {boolean}
 */
const ours = (node) => node.getSourceFile().fileName.startsWith(join(ROOT, "src") + "/");

/**
 * `"private"` or `"protected"` for a declaration so marked (a member, a
 * constructor, a static), else `undefined`: neither is a user's to call.
 * @param {ts.Declaration | undefined} decl
 * @returns {"private" | "protected" | undefined}
 */
function hidden(decl) {
  if (!decl) return undefined;
  const mods = ts.getCombinedModifierFlags(decl);
  return mods & ts.ModifierFlags.Private ? "private" : mods & ts.ModifierFlags.Protected ? "protected" : undefined;
}

const FLAGS = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseFullyQualifiedType | ts.TypeFormatFlags.WriteArrowStyleSignature;

/**
 * One export as report lines: its kind, name and shape (members of a class or
 * interface, one a line).
 * @param {ts.TypeChecker} checker
 * @param {ts.Symbol} exported
 * @returns {string[]}
 */
function describe(checker, exported) {
  const name = exported.getName();
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const decl = symbol.declarations?.[0];
  const typeOnly = exported.declarations?.some((d) => ts.isExportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly)) ?? false;
  const lines = [];
  const type = (/** @type {ts.Type} */ t) => checker.typeToString(t, decl, FLAGS);
  const members = (/** @type {ts.Type} */ t, /** @type {string} */ indent) => {
    for (const prop of checker.getPropertiesOfType(t)) {
      const pdecl = prop.valueDeclaration ?? prop.declarations?.[0];
      // Members inherited from the runtime's own types (Error's stack, message) are not this package's surface.
      if (!pdecl || !ours(pdecl)) continue;
      const mods = ts.getCombinedModifierFlags(/** @type {ts.Declaration} */ (pdecl));
      if (hidden(/** @type {ts.Declaration} */ (pdecl)) || prop.getName().startsWith("#") || prop.getName().startsWith("__@")) continue;
      const readonly = mods & ts.ModifierFlags.Readonly ? "readonly " : "";
      const optional = prop.flags & ts.SymbolFlags.Optional ? "?" : "";
      const ptype = checker.getTypeOfSymbolAtLocation(prop, pdecl);
      if (prop.flags & ts.SymbolFlags.Method) {
        // an optional method's type includes `undefined`, which has no call signatures
        for (const sig of checker.getNonNullableType(ptype).getCallSignatures())
          lines.push(`${indent}${prop.getName()}${optional}${checker.signatureToString(sig, pdecl, FLAGS)}`);
      } else lines.push(`${indent}${readonly}${prop.getName()}${optional}: ${type(ptype)}`);
    }
  };
  if (symbol.flags & ts.SymbolFlags.Class && decl) {
    const ctorType = checker.getTypeOfSymbolAtLocation(symbol, decl);
    const heritage = ts.isClassDeclaration(decl) ? (decl.heritageClauses ?? []).map((h) => ` ${h.getText()}`).join("") : "";
    lines.push(`${typeOnly ? "type " : ""}class ${name}${heritage}`);
    // A class exported as a type has no constructor or statics a user can reach: its instance members only.
    if (!typeOnly) {
      for (const sig of ctorType.getConstructSignatures()) {
        const access = hidden(sig.declaration);
        // A private constructor: the class is built by its own statics; its parameters are internal.
        if (access === "private") {
          lines.push("  private constructor");
          break;
        }
        const params = sig.getParameters().map((p) => {
          const pdecl = p.valueDeclaration;
          const optional = pdecl && ts.isParameter(pdecl) && (pdecl.questionToken || pdecl.initializer) ? "?" : "";
          const rest = pdecl && ts.isParameter(pdecl) && pdecl.dotDotDotToken ? "..." : "";
          return `${rest}${p.getName()}${optional}: ${type(checker.getTypeOfSymbolAtLocation(p, decl))}`;
        });
        lines.push(`  ${access ? `${access} ` : ""}constructor(${params.join(", ")})`);
      }
      const statics = checker
        .getPropertiesOfType(ctorType)
        .filter(
          (p) =>
            p.getName() !== "prototype" &&
            p.declarations?.some(ours) &&
            !p.getName().startsWith("#") &&
            !hidden(p.valueDeclaration ?? p.declarations?.[0]),
        );
      for (const s of statics) lines.push(`  static ${s.getName()}: ${type(checker.getTypeOfSymbolAtLocation(s, decl))}`);
    }
    members(checker.getDeclaredTypeOfSymbol(symbol), "  ");
  } else if (symbol.flags & ts.SymbolFlags.Interface) {
    lines.push(`interface ${name}`);
    const t = checker.getDeclaredTypeOfSymbol(symbol);
    for (const sig of t.getCallSignatures()) lines.push(`  ${checker.signatureToString(sig, decl, FLAGS)}`);
    members(t, "  ");
  } else if (symbol.flags & ts.SymbolFlags.TypeAlias && decl && ts.isTypeAliasDeclaration(decl)) {
    lines.push(`type ${name} = ${oneLineType(decl.type.getText())}`);
  } else if (symbol.flags & ts.SymbolFlags.Function && decl) {
    for (const sig of checker.getTypeOfSymbolAtLocation(symbol, decl).getCallSignatures())
      lines.push(`function ${name}${checker.signatureToString(sig, decl, FLAGS)}`);
  } else if (symbol.flags & ts.SymbolFlags.Variable && decl) {
    lines.push(`const ${name}: ${type(checker.getTypeOfSymbolAtLocation(symbol, decl))}`);
  } else if (symbol.flags & ts.SymbolFlags.Enum) {
    lines.push(`enum ${name}`);
  } else lines.push(`${name}`);
  return lines;
}

/**
 * The report of one entry point.
 * @param {ts.Program} program
 * @param {{ name: string, source: string }} entry
 * @returns {string}
 */
function report(program, entry) {
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(entry.source);
  const moduleSymbol = file && checker.getSymbolAtLocation(file);
  if (!moduleSymbol) throw new Error(`api-report: ${entry.source} is not a module the type checker can read`);
  const exported = checker.getExportsOfModule(moduleSymbol).sort((a, b) => a.getName().localeCompare(b.getName()));
  // A type the checker names by file is written relative to the checkout, so the
  // report is the same in every clone (never this machine's absolute path).
  const body = exported
    .map((symbol) => [...sdkNote(checker, symbol, entry), ...describe(checker, symbol)].join("\n"))
    .join("\n\n")
    .split(`import("${ROOT}/`)
    .join('import("');
  return [
    `# API report: \`${entry.name}\``,
    "",
    "Written by `node scripts/api-report.mjs` from the type checker; `npm run lint` fails when it is stale.",
    `Do not edit by hand. ${exported.length} exports.`,
    "",
    "```ts",
    body,
    "```",
    "",
  ].join("\n");
}

/**
 * The MCP SDK packages whose exports a name of this package may shadow: such
 * a name needs its reason in the report (issue #42: no name that means
 * something else in the SDK without one).
 */
const SDK_PACKAGES = ["@modelcontextprotocol/client", "@modelcontextprotocol/server"];

const entries = entryPoints().filter((entry) => existsSync(entry.source));
const options = { ...readCompilerOptions(), noEmit: true };
/** Each SDK package's declaration file, as this checkout resolves it (a package not installed is left out). */
const sdkFiles = SDK_PACKAGES.flatMap((pkg) => {
  const resolved = entries[0] && ts.resolveModuleName(pkg, entries[0].source, options, ts.sys).resolvedModule;
  return resolved ? [{ pkg, file: resolved.resolvedFileName }] : [];
});
const program = ts.createProgram([...entries.map((entry) => entry.source), ...sdkFiles.map((sdk) => sdk.file)], options);

/** Each name the SDK packages export, with the packages that export it. */
const sdkNames = (() => {
  const checker = program.getTypeChecker();
  /** @type {Map<string, string[]>} */
  const names = new Map();
  for (const { pkg, file } of sdkFiles) {
    const source = program.getSourceFile(file);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!moduleSymbol) continue;
    for (const symbol of checker.getExportsOfModule(moduleSymbol))
      names.set(symbol.getName(), [...(names.get(symbol.getName()) ?? []), pkg]);
  }
  return names;
})();

/** Names of ours the SDK also exports whose JSDoc gives no reason: `Name (entry) ...` lines. */
const unexplained = [];

/**
 * The report's line above an export the MCP SDK also exports: the SDK
 * packages that do, and the reason from the export's JSDoc (its paragraph
 * that starts `MCP SDK:`). No line for any other name; a shadowing name
 * without that paragraph is recorded in `unexplained`.
 * @param {ts.TypeChecker} checker
 * @param {ts.Symbol} exported
 * @param {{ name: string }} entry
 * @returns {string[]}
 */
function sdkNote(checker, exported, entry) {
  const name = exported.getName();
  const pkgs = sdkNames.get(name);
  if (!pkgs) return [];
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const doc = ts.displayPartsToString(symbol.getDocumentationComment(checker));
  const reason = doc
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/\s+/g, " ").trim())
    .find((paragraph) => paragraph.startsWith("MCP SDK:"));
  if (!reason) {
    unexplained.push(`\`${name}\` (${entry.name}) is also exported by ${pkgs.join(", ")}`);
    return [];
  }
  return [`// ${name} is also ${pkgs.map((pkg) => `${pkg}'s`).join(" and ")} ${name}. ${reason}`];
}
const fileOf = (/** @type {{ name: string }} */ entry) =>
  join(DIR, `${entry.name.replace(/^arc-agentkit\/?/, "").replace(/\//g, "-") || "index"}.api.md`);

/** @returns {ts.CompilerOptions} the repository's build options */
function readCompilerOptions() {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, "tsconfig.build.json"),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  return config?.options ?? {};
}

const wanted = new Map(entries.map((entry) => [fileOf(entry), report(program, entry)]));
if (unexplained.length) {
  console.error(
    `api-report: a name that the MCP SDK exports too needs the reason it is ours, as a paragraph of its JSDoc starting "MCP SDK:" (what the SDK's name is, and why this one keeps it):\n  ${unexplained.join("\n  ")}`,
  );
  process.exit(1);
}
if (check) {
  const problems = [];
  for (const [path, text] of wanted) {
    if (!existsSync(path)) problems.push(`${path}: missing`);
    else if (readFileSync(path, "utf8") !== text) problems.push(`${path}: stale (the entry point's exports changed)`);
  }
  const extra = existsSync(DIR)
    ? readdirSync(DIR)
        .filter((n) => n.endsWith(".api.md"))
        .map((n) => join(DIR, n))
        .filter((p) => !wanted.has(p))
    : [];
  for (const path of extra) problems.push(`${path}: no entry point of package.json writes this report`);
  if (problems.length) {
    console.error(
      `api-report: the public surface differs from the checked-in reports:\n  ${problems.join("\n  ")}\nReview the change, then run \`node scripts/api-report.mjs\` and commit the api/ folder.`,
    );
    process.exit(1);
  }
  console.log(`api-report: ${wanted.size} reports up to date`);
} else {
  mkdirSync(DIR, { recursive: true });
  for (const [path, text] of wanted) writeFileSync(path, text);
  console.log(`api-report: wrote ${wanted.size} reports to ${DIR}`);
}
