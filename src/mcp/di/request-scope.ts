/**
 * @module mcp/di/request-scope
 * Which classes of a module must be built per call. The per-call `RunContext`
 * makes a class request-scoped, and so does depending on one that is, however
 * far down (as in Nest, the scope bubbles up the injection chain): a singleton
 * that held a call's context would hand that cancelled, released context to
 * every later call and every session. Walking the chain also finds what the
 * container could not supply, before anything is built.
 */
import type { DependencyContainer } from "tsyringe";
import { constructorParams, missingMetadataMessage, paramIndexes, paramToken, uninjectableParams } from "../../tools/constructor-params.js";
import type { Provider } from "./mcp-server-options.js";

/** Why a class is request-scoped: the path from it to the `RunContext` (`["CallAudit", "RunContext"]`), or `null` when it is not. */
export type ScopePath = readonly string[] | null;

type Ctor = abstract new (...args: never[]) => unknown;

const NOT_INJECTABLE = new Set<unknown>([Object, Array, String, Number, Boolean, Function, Promise]);

/** A readable name for a DI token. */
export function tokenName(t: unknown): string {
  if (typeof t === "function") return t.name || "anonymous class";
  if (typeof t === "symbol") return t.description ?? t.toString();
  return String(t);
}

/**
 * Walks constructor dependencies over what a module will register. `fixed`
 * are tokens bootstrap registers itself (`true`: per call, the context);
 * `providers` the module's own; anything else registered in `parent` is
 * opaque (taken as it is); a dependency none of these supplies — a class
 * included — is refused, naming the class being built and what it lacks.
 */
export class ScopeScanner {
  private readonly memo = new Map<unknown, ScopePath>();
  private readonly walking = new Set<unknown>();
  private root: { readonly step: string; readonly what: string } = { step: "providers", what: "" };

  constructor(
    private readonly fixed: ReadonlyMap<unknown, boolean>,
    private readonly providers: ReadonlyMap<unknown, Provider>,
    private readonly parent: DependencyContainer,
    /** Throws: `what` (the root being walked, e.g. `@Tool class RunCheck`) cannot be built, and `why` (the chain to the culprit). */
    private readonly fail: (step: string, what: string, why: string) => never,
  ) {}

  /**
   * The path to the context when `cls` (described by `what`, in bootstrap
   * step `step`) must be built per call, else `null`. A constructor the
   * container cannot call, anywhere down the chain, calls `fail`.
   */
  scope(cls: Ctor, what: string, step: string): ScopePath {
    this.root = { step, what };
    return this.classScope(cls, []);
  }

  private reject(why: string): never {
    return this.fail(this.root.step, this.root.what, why);
  }

  private classScope(cls: Ctor, chain: readonly string[]): ScopePath {
    if (this.memo.has(cls)) return this.memo.get(cls)!;
    // A cycle: tsyringe reports it when it builds (or `delay()` breaks it); it adds no scope here.
    if (this.walking.has(cls)) return null;
    this.walking.add(cls);
    try {
      const here = [...chain, tokenName(cls)];
      const params = constructorParams(cls);
      const missing = uninjectableParams(params);
      if (missing.length)
        this.reject(missingMetadataMessage(chain.length ? `its dependency ${here.slice(1).join(" -> ")}` : "", params, missing, false));
      let path: ScopePath = null;
      for (const i of paramIndexes(params)) {
        const { token, optional } = paramToken(params, i);
        const sub = this.tokenScope(token, optional, here, i);
        if (sub && !path) path = [tokenName(cls), ...sub];
      }
      this.memo.set(cls, path);
      return path;
    } finally {
      this.walking.delete(cls);
    }
  }

  private tokenScope(token: unknown, optional: boolean, chain: readonly string[], i: number): ScopePath {
    const where =
      chain.length > 1 ? `its dependency ${chain.slice(1).join(" -> ")}: constructor argument ${i}` : `its constructor argument ${i}`;
    if (this.fixed.has(token)) return this.fixed.get(token) ? [tokenName(token)] : null;
    const p = this.providers.get(token);
    if (p !== undefined) return providerClass(p) ? this.classScope(providerClass(p)!, chain) : null;
    if (this.parent.isRegistered(token as never, true)) return null;
    if (token === undefined || NOT_INJECTABLE.has(token)) {
      this.reject(
        `${where} has no injectable type (${token === undefined ? "none" : tokenName(token)}): use @inject(Token) ` +
          `or a class type, and import that class as a value, not with 'import type'`,
      );
    }
    // delay(() => Class): resolved lazily, after this walk; an optional token may stay unprovided.
    if (optional || (token && typeof token === "object" && "createProxy" in token)) return null;
    // As Nest: a class no provider supplies is refused, not built afresh for each class that asks (each its own instance).
    this.reject(
      `${where} (${tokenName(token)}) is not provided — add ${tokenName(token)} to the module's providers (or ` +
        `register it in the container given to bootstrap)`,
    );
  }
}

/** The class a provider builds (`Class` or `{ useClass }`), or `undefined` for values and factories. */
export function providerClass(p: Provider): Ctor | undefined {
  if (typeof p === "function") return p;
  return "useClass" in p ? p.useClass : undefined;
}

/** The token a provider is registered under. */
export function providerToken(p: Provider): unknown {
  return typeof p === "function" ? p : p.provide;
}
