/**
 * @module test/build/lifecycle.test
 * One way to start and stop a part (issue #42 point 5): every exported class,
 * interface or type of every entry point of package.json's `exports` map, as
 * the type checker reads them from src/ (and what an exported function
 * returns, when that is not an export itself), is started by `start()` (a static
 * `X.start(options)` or an instance `start()`) and ended by `stop()`, which
 * `[Symbol.asyncDispose]` calls too. It fails, naming the export and member,
 * when a public member is named `open`, `close`, `dispose` or `shutdown`,
 * when an async static returns the class's own instance under another name
 * than `start`, or when a part has `stop()` without `[Symbol.asyncDispose]`.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { entryPoints, surfaceProgram } from "../core/surface.js";


/** Names a part must not start or end by: the one pair is `start()` / `stop()`. */
const OTHER_VERBS = new Set(["open", "close", "dispose", "shutdown"]);

/**
 * `Export.member` (or `fn().member`, a member of what an exported function
 * returns) that is someone else's contract, kept under the name that contract
 * gives it, with the reason.
 */
const ALLOWED = new Map<string, string>([
  ["hostedServer().close", "Node's own `http.Server`, returned as it is: `server.close(callback)` is Node's contract"],
]);

/** True when `symbol` is a member a user can call: not private/protected, not `#private`, callable. */
function publicCallable(checker: ts.TypeChecker, symbol: ts.Symbol, at: ts.Node): boolean {
  const hidden = symbol.declarations?.some(
    (d) =>
      (ts.getCombinedModifierFlags(d) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !== 0 ||
      (ts.isClassElement(d) && !!d.name && ts.isPrivateIdentifier(d.name)),
  );
  return !hidden && checker.getTypeOfSymbolAtLocation(symbol, at).getCallSignatures().length > 0;
}

/** The type a promise resolves to (or `type` itself when it is not a promise). */
function awaited(checker: ts.TypeChecker, type: ts.Type): ts.Type {
  return checker.getAwaitedType(type) ?? type;
}

/** The findings on the members of `type` (an instance, or what a function returns), as `Name.member: what` lines. */
function memberFindings(checker: ts.TypeChecker, name: string, type: ts.Type, at: ts.Node): string[] {
  const out: string[] = [];
  const members = checker.getPropertiesOfType(type);
  for (const member of members)
    if (OTHER_VERBS.has(member.name) && publicCallable(checker, member, at))
      out.push(`${name}.${member.name}: a part starts with start() and ends with stop(), not ${member.name}()`);
  const hasStop = members.some((m) => m.name === "stop" && publicCallable(checker, m, at));
  // A well-known symbol's member is named `__@asyncDispose@<id>` inside the checker.
  const disposes = members.some((m) => /^__@asyncDispose@\d+$/.test(m.escapedName.toString()));
  if (hasStop && !disposes) out.push(`${name}.stop: a part with stop() has [Symbol.asyncDispose] calling it`);
  return out;
}

/** The lifecycle findings of one exported class, interface or object type: its members, and a class's statics. */
function findings(checker: ts.TypeChecker, name: string, target: ts.Symbol, at: ts.Node): string[] {
  const instance = checker.getDeclaredTypeOfSymbol(target);
  const out = memberFindings(checker, name, instance, at);
  if (target.flags & ts.SymbolFlags.Class) {
    const statics = checker.getPropertiesOfType(checker.getTypeOfSymbolAtLocation(target, at));
    for (const member of statics) {
      if (member.name === "start" || member.name === "prototype" || !publicCallable(checker, member, at)) continue;
      const signatures = checker.getTypeOfSymbolAtLocation(member, at).getCallSignatures();
      // async and resolving to this class (by symbol: a generic class's instance type is not `instance` itself)
      const startsOne = signatures.some((signature) => {
        const returned = checker.getReturnTypeOfSignature(signature);
        return returned !== awaited(checker, returned) && awaited(checker, returned).getSymbol() === target;
      });
      if (startsOne || OTHER_VERBS.has(member.name))
        out.push(`${name}.${member.name}: a static that starts one is named start(), not ${member.name}()`);
    }
  }
  return out;
}

/** Every lifecycle finding across the exports of `entries` (.ts files), each export once, sorted (allow-listed ones too). */
function lifecycleFindings(entries: readonly string[]): string[] {
  const program = surfaceProgram(entries);
  const checker = program.getTypeChecker();
  const seen = new Set<ts.Symbol>();
  const out = new Set<string>();
  const functions: Array<{ name: string; target: ts.Symbol; at: ts.SourceFile }> = [];
  for (const entry of entries) {
    const file = program.getSourceFile(entry);
    const moduleSymbol = file && checker.getSymbolAtLocation(file);
    if (!file || !moduleSymbol) throw new Error(`${entry} is not a module the type checker can read`);
    for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      // functions, and constants holding one (`export const make = () => ...`)
      if (target.flags & ts.SymbolFlags.Function || (target.flags & ts.SymbolFlags.Variable && publicCallable(checker, target, file)))
        functions.push({ name: symbol.name, target, at: file });
      if (seen.has(target) || !(target.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias))) continue;
      seen.add(target);
      for (const line of findings(checker, symbol.name, target, file)) out.add(line);
    }
  }
  // What an exported function returns, when its type is not an export checked above (an unnamed or internal type).
  for (const { name, target, at } of functions)
    for (const signature of checker.getTypeOfSymbolAtLocation(target, at).getCallSignatures()) {
      const returned = awaited(checker, checker.getReturnTypeOfSignature(signature));
      const named = returned.aliasSymbol ?? returned.getSymbol();
      if (named && seen.has(named)) continue;
      for (const line of memberFindings(checker, `${name}()`, returned, at)) out.add(line);
    }
  return [...out].sort();
}

/** The `Name.member` a finding line is about. */
const where = (line: string): string => line.slice(0, line.indexOf(":"));

/** A module with one part of each wrong kind and one right part: what the check must name. */
const FIXTURE = `
export class Opener { static async open(): Promise<Opener> { return new Opener(); } async close(): Promise<void> {} }
export class Undisposed { static async start(): Promise<Undisposed> { return new Undisposed(); } async stop(): Promise<void> {} }
export interface Store { shutdown(): Promise<void>; dispose?: () => void }
export async function openThing(): Promise<{ close(): Promise<void> }> { return { close: async () => {} }; }
export function rightThing(): Right { return new Right(); }
export const makeThing = (): { dispose(): void } => ({ dispose() {} });
export class SyncOpener { static open(): SyncOpener { return new SyncOpener(); } static close(): void {} }
export class Box<T> { static async open(): Promise<Box<string>> { return new Box<string>(); } value?: T }
export class Right {
  static async start(): Promise<Right> { return new Right(); }
  static async fromFile(): Promise<string> { return ""; }
  private async close(): Promise<void> {}
  async stop(): Promise<void> { await this.close(); }
  async [Symbol.asyncDispose](): Promise<void> { await this.stop(); }
}
`;

describe("one way to start and stop a part", () => {
  it("names each wrong kind in a fixture, and passes the right part", () => {
    const dir = mkdtempSync(join(tmpdir(), "lifecycle-"));
    try {
      writeFileSync(join(dir, "parts.ts"), FIXTURE);
      expect(lifecycleFindings([join(dir, "parts.ts")]).map(where)).toEqual([
        "Box.open",
        "Opener.close",
        "Opener.open",
        "Store.dispose",
        "Store.shutdown",
        "SyncOpener.close",
        "SyncOpener.open",
        "Undisposed.stop",
        "makeThing().dispose",
        "openThing().close",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("no exported part opens, closes, disposes or shuts down: it starts with start() and stops with stop()", () => {
    const all = lifecycleFindings(entryPoints().map((entry) => entry.source));
    const found = all.filter((line) => !ALLOWED.has(where(line)));
    console.log(found.length === 0 ? "lifecycle: every part starts with start() and stops with stop()" : ["lifecycle:", ...found.map((l) => `  ${l}`)].join("\n"));
    expect(found).toEqual([]);
    expect([...ALLOWED.keys()].filter((key) => !all.some((line) => where(line) === key)), "allow-list entries no longer found").toEqual([]);
  }, 120_000);
});
