/**
 * @module mcp/di/module-imports
 * `@McpServer({ imports: [OtherModule] })`, as Nest composes modules: an
 * imported module's providers, tools, resources, prompts and remotes join the
 * importing module's, which alone decides how they are served (its `name`,
 * transport, approvals). Checked at scan time: every import is an
 * `@McpServer` module, a module reached twice (a diamond) counts once, a
 * cycle is refused naming it, and two modules giving one token, remote alias
 * or prompt different definitions are refused naming both.
 */
import { getMcpServerMetadata } from "./mcp-server.decorator.js";
import type { McpServerOptions, ModuleImport, Provider } from "./mcp-server-options.js";
import { providerToken, tokenName } from "./request-scope.js";

type ModuleClass = abstract new (...args: never[]) => unknown;

/** The class of an `imports` entry: the class itself, or what a `() => Module` entry returns. */
function importedClass(entry: ModuleImport): unknown {
  return typeof entry === "function" && !("prototype" in entry && entry.prototype) ? (entry as () => unknown)() : entry;
}

function label(m: unknown): string {
  return (m as { name?: string } | undefined)?.name || String(m);
}

/** Every module `root` reaches, imports first (depth-first, each once), `root` last; throws `fail(why)` for a cycle or a non-module. */
function moduleOrder(root: ModuleClass, fail: (why: string) => never): ModuleClass[] {
  const done = new Set<unknown>();
  const order: ModuleClass[] = [];
  const visit = (m: ModuleClass, path: readonly ModuleClass[]): void => {
    if (done.has(m)) return;
    const at = path.indexOf(m);
    if (at >= 0)
      fail(
        `its imports form a cycle: ${[...path.slice(at), m].map(label).join(" -> ")}. A module cannot import ` +
          `itself, directly or through others: move what both need into a third module that both import`,
      );
    const meta = getMcpServerMetadata(m)!;
    (meta.imports ?? []).forEach((entry, i) => {
      const cls = importedClass(entry);
      if (typeof cls !== "function" || !getMcpServerMetadata(cls)) {
        fail(
          `${label(m)}'s imports[${i}] ` +
            `(${cls === undefined ? "undefined — two files importing each other? write the entry as a function: imports: [() => Module]" : label(cls)}) is not an @McpServer module`,
        );
      }
      visit(cls as ModuleClass, [...path, m]);
    });
    done.add(m);
    order.push(m);
  };
  visit(root, []);
  return order;
}

/** Adds `items` to `into` by key; one item under one key twice is kept once, two different ones are refused. */
function merge<T>(
  into: Map<unknown, { item: T; from: string }>,
  items: readonly T[],
  key: (t: T) => unknown,
  from: string,
  what: (k: unknown) => string,
  fail: (why: string) => never,
): void {
  for (const item of items) {
    const k = key(item);
    const prev = into.get(k);
    if (!prev) into.set(k, { item, from });
    else if (!sameDefinition(prev.item, item))
      fail(`${what(k)} is defined differently by ${prev.from} and ${from}; keep one definition (in a module both import)`);
  }
}

function sameDefinition(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!a || !b || typeof a !== "object" || typeof b !== "object") return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  return keys.length === Object.keys(y).length && keys.every((k) => x[k] === y[k]);
}

/**
 * The options of `root` with its imports folded in (the root's own serving
 * options kept). A module without imports gets its own options back.
 *
 * @throws whatever `fail` throws (bootstrap throws `BootstrapError`, step `imports`).
 */
export function composeModule(root: ModuleClass, fail: (why: string) => never): Readonly<McpServerOptions> {
  const meta = getMcpServerMetadata(root)!;
  if (!(meta.imports ?? []).length) return meta;
  const providers = new Map<unknown, { item: Provider; from: string }>();
  const tools = new Map<unknown, { item: McpServerOptions["tools"][number]; from: string }>();
  const resources = new Map<unknown, { item: NonNullable<McpServerOptions["resources"]>[number]; from: string }>();
  const prompts = new Map<unknown, { item: unknown; from: string }>();
  const remotes = new Map<unknown, { item: NonNullable<McpServerOptions["remotes"]>[number]; from: string }>();
  for (const m of moduleOrder(root, fail)) {
    const o = getMcpServerMetadata(m)!;
    const from = label(m);
    merge(providers, o.providers ?? [], providerToken, from, (k) => `provider ${tokenName(k)}`, fail);
    // Tools and resources are keyed by identity: two different tools of one name are refused later, by the name rules.
    merge(
      tools,
      o.tools,
      (t) => t,
      from,
      () => "a tool",
      fail,
    );
    merge(
      resources,
      o.resources ?? [],
      (r) => r,
      from,
      () => "a resource",
      fail,
    );
    merge(
      remotes,
      o.remotes ?? [],
      (r) => r.alias,
      from,
      (k) => `remote '${String(k)}'`,
      fail,
    );
    const p = o.prompts;
    if (p !== undefined && !Array.isArray(p))
      fail(
        `${from} gives 'prompts' as a record; a module that imports or is imported takes prompts as an array ` +
          `(@Prompt classes or prompt objects)`,
      );
    merge(
      prompts,
      (p ?? []) as readonly unknown[],
      (x) => x,
      from,
      () => "a prompt",
      fail,
    );
  }
  const values = <T>(m: Map<unknown, { item: T }>): readonly T[] => Object.freeze([...m.values()].map((v) => v.item));
  return Object.freeze({
    ...meta,
    providers: values(providers),
    tools: values(tools),
    resources: values(resources),
    remotes: values(remotes),
    ...(prompts.size ? { prompts: values(prompts) as McpServerOptions["prompts"] } : {}),
  });
}
