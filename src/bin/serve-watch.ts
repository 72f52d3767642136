/**
 * @module bin/serve-watch
 * `agentkit serve --watch`: watch the module file's directory and, after a
 * change (your `tsc --watch` rebuilt it), import the rebuilt files fresh and
 * restart the served module in place — the same port, so the same URL, and
 * the same config path, so the printed command line stays right.
 */
import { watch, type FSWatcher } from "node:fs";
import { register } from "node:module";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";

/** How long the directory must be quiet before a restart (a rebuild writes many files). */
export const WATCH_SETTLE_MS = 300;

let registered = false;

/** Register the loader hooks once for `dir` (see `bin/watch-hooks`). */
function registerHooks(dir: string): void {
  if (registered) return;
  registered = true;
  register(new URL("./watch-hooks.js", import.meta.url), { data: { dir: pathToFileURL(dir).href + "/" } });
}

/** The URL to import `path` at for `generation`: every file of its directory is then loaded anew. */
export function generationUrl(path: string, generation: number): string {
  registerHooks(dirname(path));
  const url = pathToFileURL(path);
  url.searchParams.set("agentkit-watch", String(generation));
  return url.href;
}

/**
 * Call `changed()` once the directory of `path` (recursively) has been quiet
 * for `WATCH_SETTLE_MS` after a change to a `.js`/`.mjs`/`.cjs`/`.json` file;
 * changes during a running `changed()` are folded into one more call after it.
 * Returns what stops watching.
 */
export function watchModuleDir(path: string, changed: () => Promise<void>): () => void {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  const fire = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = changed().finally(() => {
      running = undefined;
      if (again) {
        again = false;
        fire();
      }
    });
  };
  const watcher: FSWatcher = watch(dirname(path), { recursive: true }, (_event, name) => {
    if (name && !/\.(?:m|c)?js$|\.json$/.test(String(name))) return;
    clearTimeout(timer);
    timer = setTimeout(fire, WATCH_SETTLE_MS);
  });
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}
