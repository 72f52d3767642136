/**
 * @module util/optional-peer
 * The one way an optional peer dependency is loaded: at run time (ESM links
 * static imports before any code runs, so only a runtime load can turn a
 * missing peer into a clear message), on first use, with the caller's error
 * when the package is not installed and Node's own error otherwise. Through
 * `createRequire` where the caller needs the module synchronously; through
 * `import()` (`importedPeer`) where it can wait, so an ESM app that imports
 * the same package itself shares one copy with agentkit.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** True for the errors Node raises when a package (or its subpath) is not installed. */
export function isModuleNotFound(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === "MODULE_NOT_FOUND" || code === "ERR_MODULE_NOT_FOUND" || code === "ERR_PACKAGE_PATH_NOT_EXPORTED";
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

/** `lazyPeer` for a (CommonJS) dependency, not a peer: always installed, so a failure is Node's own error, as it is. */
export function lazyDependency<T>(id: string): () => T {
  return lazyPeer<T>(id, (cause) => cause as Error);
}

/** An optional peer loaded by `import()`: checked for at once, imported on first use. */
export interface ImportedPeer<T> {
  /** Throws the caller's `MissingPeerError` now when the package does not resolve (nothing is loaded). */
  check(): void;
  /** The module, imported on the first call (the package's ESM build); the same promise after. */
  load(): Promise<T>;
}

/** A peer loaded through `import()`; a missing package rejects (and `check()` throws) with `missing(cause)`. */
export function importedPeer<T>(id: string, missing: (cause: unknown) => Error): ImportedPeer<T> {
  let loaded: Promise<T> | undefined;
  return {
    check: () => resolvePeer(id, missing),
    load: () =>
      (loaded ??= (import(id) as Promise<T>).catch((err: unknown) => {
        loaded = undefined;
        throw isModuleNotFound(err) ? missing(err) : err;
      })),
  };
}
