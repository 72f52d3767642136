/**
 * @module tools/constructor-params
 * What a class's constructor asks the container for: its parameter count, the
 * `design:paramtypes` a metadata-emitting build wrote, and the `@inject(token)`
 * tokens on its parameters. The one place that reads constructor metadata,
 * and the one message for a build that emitted none.
 */
import "reflect-metadata";

/** One class's constructor, as the container will see it. */
export interface ConstructorParams {
  /** `cls.length`: the parameters before the first one with a default. */
  readonly count: number;
  /** `design:paramtypes`, or `undefined` when the build emitted none (tsx, esbuild) or the class has no decorator. */
  readonly types: readonly unknown[] | undefined;
  /** `@inject(token)` / `@injectAll(token)` descriptors by parameter index. */
  readonly tokens: Readonly<Record<number, unknown>>;
}

/**
 * The key under which tsyringe's parameter decorators (`@inject`,
 * `@injectAll`, `@injectWithTransform`) record their tokens. tsyringe 4.x
 * offers no public reader: its `getParamInfo` is not exported, and the map it
 * fills from it (`typeInfo`) is private. So this is read here and nowhere
 * else; `test/tools/constructor-params.test.ts` fails loudly if a tsyringe
 * release moves it.
 */
const TSYRINGE_INJECTION_TOKENS = "injectionTokens";

/** The `@inject` descriptors tsyringe recorded on `cls` itself, by parameter index (see `TSYRINGE_INJECTION_TOKENS`). */
export function injectionTokens(cls: object): Readonly<Record<number, unknown>> {
  return (Reflect.getOwnMetadata(TSYRINGE_INJECTION_TOKENS, cls) as Record<number, unknown> | undefined) ?? {};
}

/** Read `cls`'s constructor metadata. */
export function constructorParams(cls: abstract new (...args: never[]) => unknown): ConstructorParams {
  const types = Reflect.getMetadata("design:paramtypes", cls) as unknown[] | undefined;
  return { count: cls.length, types: Array.isArray(types) ? types : undefined, tokens: injectionTokens(cls) };
}

/**
 * What the container injects at parameter `i`: the `@inject` descriptor's
 * token when there is one, else the emitted type (`undefined` when neither).
 */
export function paramToken(p: ConstructorParams, i: number): { readonly token: unknown; readonly optional: boolean } {
  const d = p.tokens[i];
  if (d && typeof d === "object" && "token" in d)
    return { token: (d as { token: unknown }).token, optional: (d as { isOptional?: boolean }).isOptional === true };
  return { token: d ?? p.types?.[i], optional: false };
}

/** Every parameter index the container will fill: the counted ones, and any further one with a type or a token. */
export function paramIndexes(p: ConstructorParams): number[] {
  const n = Math.max(p.count, p.types?.length ?? 0, ...Object.keys(p.tokens).map((k) => Number(k) + 1));
  return Array.from({ length: n }, (_, i) => i);
}

/** The indexes of the parameters the container has nothing for: no emitted type and no `@inject(token)`. */
export function uninjectableParams(p: ConstructorParams): number[] {
  const out: number[] = [];
  for (let i = 0; i < p.count; i++) if (p.types?.[i] === undefined && p.tokens[i] === undefined) out.push(i);
  return out;
}

/**
 * Why a class with constructor parameters cannot be injected when the build
 * wrote no `design:paramtypes`, and the fixes. `who` starts the sentence
 * (`@Tool on RunCheck`; empty: it starts at "its constructor"); `decorated` says whether
 * the class is known to carry a decorator (TypeScript writes the metadata only
 * for decorated classes).
 */
export function missingMetadataMessage(who: string, p: ConstructorParams, missing: readonly number[], decorated: boolean): string {
  const which = missing.length === p.count ? "none of them has" : `parameter(s) ${missing.join(", ")} have no`;
  const why = "the build does not emit decorator metadata (tsx and esbuild never do, nor does vitest on vite 7)";
  return (
    `${who ? `${who}: ` : ""}its constructor takes ${p.count} parameter(s), but the class carries no ` +
    `design:paramtypes metadata and ${which} @inject(Token), so the container cannot know what to pass. ` +
    (decorated
      ? `Why: ${why}. `
      : `Why: the class has no decorator (add @injectable() from tsyringe; TypeScript writes the metadata only for decorated classes), or ${why}. `) +
    `Fix one of: build with tsc ("experimentalDecorators" and "emitDecoratorMetadata" on); run tests with vitest ` +
    `4.1 on vite 8; use SWC with decorator metadata (jsc.transform.decoratorMetadata); or put @inject(Token) on ` +
    `each constructor parameter.`
  );
}
