/**
 * @module util/optional-peer
 * The one way an optional peer dependency is loaded: through `createRequire`
 * (ESM links static imports before any code runs, so only a runtime load can
 * turn a missing peer into a clear message), on first use, with the caller's
 * error when the package is not installed and Node's own error otherwise.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** True for the errors Node raises when a package (or its subpath) is not installed. */
export function isModuleNotFound(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === "MODULE_NOT_FOUND" || code === "ERR_PACKAGE_PATH_NOT_EXPORTED";
}

/** Load `id` now; a missing package throws `missing(cause)` (a `MissingPeerError` naming the install line). */
export function requirePeer<T>(id: string, missing: (cause: unknown) => Error): T {
  try {
    return require(id) as T;
  } catch (err) {
    if (isModuleNotFound(err)) throw missing(err);
    throw err;
  }
}

/** Throws `missing(cause)` unless `id` resolves, without loading it. */
export function resolvePeer(id: string, missing: (cause: unknown) => Error): void {
  try {
    require.resolve(id);
  } catch (err) {
    throw missing(err);
  }
}

/** A getter that loads `id` on its first call and returns the same module after. */
export function lazyPeer<T>(id: string, missing: (cause: unknown) => Error): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= requirePeer<T>(id, missing));
}
