/**
 * @module bin/watch-hooks
 * Module-loader hooks for `agentkit serve --watch` (registered with
 * `module.register`, so they run on Node's loader thread): a file under the
 * watched directory, imported from a module whose URL carries
 * `?agentkit-watch=<n>`, is resolved with that same query. Each restart
 * imports the entry with a new `<n>`, so the user's whole rebuilt graph is
 * loaded fresh; `node_modules` (this package, tsyringe, reflect-metadata) is
 * never re-keyed, so there is one copy of each.
 */

const QUERY = "agentkit-watch";
let root = "";

/** Called once by `module.register(..., { data: { dir } })`: the watched directory's file URL, ending in `/`. */
export function initialize(data: { readonly dir: string }): void {
  root = data.dir;
}

type Resolved = { url: string; format?: string | null; shortCircuit?: boolean };
type NextResolve = (specifier: string, context: { parentURL?: string }) => Promise<Resolved>;

/** Node's `resolve` hook: pass the parent's generation on to files of the watched directory. */
export async function resolve(specifier: string, context: { parentURL?: string }, next: NextResolve): Promise<Resolved> {
  const resolved = await next(specifier, context);
  const parent = context.parentURL ? new URL(context.parentURL) : undefined;
  const generation = parent?.searchParams.get(QUERY);
  if (!generation || !root || !resolved.url.startsWith(root) || resolved.url.includes("/node_modules/")) return resolved;
  const url = new URL(resolved.url);
  url.searchParams.set(QUERY, generation);
  return { ...resolved, url: url.href };
}
