/**
 * @module test/core/tools/constructor-params.test
 * The one reader of constructor metadata: `design:paramtypes` and tsyringe's
 * `@inject` tokens (read from tsyringe's private key — this file fails loudly
 * if a tsyringe release moves it), and `@Tool`'s refusal of a constructor the
 * container could not call.
 */
import "reflect-metadata";
import { container, inject, injectAll, injectable } from "tsyringe";
import { describe, expect, it } from "vitest";
import { DefinitionError, Tool } from "../../../src/index.js";
import { constructorParams, injectionTokens, paramToken, uninjectableParams } from "../../../src/tools/constructor-params.js";

class Dep {}
const TOKEN = Symbol.for("test:constructor-params:token");
const MANY = Symbol.for("test:constructor-params:many");

describe("tsyringe's @inject tokens (a private key: this test guards it)", () => {
  @injectable()
  class Consumer {
    constructor(
      readonly dep: Dep,
      @inject(TOKEN) readonly named: string,
      @injectAll(MANY) readonly many: string[],
    ) {}
  }

  it("reads the token tsyringe itself injects, at the index it injects it", () => {
    const tokens = injectionTokens(Consumer);
    expect(Object.keys(tokens)).toEqual(["1", "2"]);
    const p = constructorParams(Consumer);
    expect(paramToken(p, 0)).toEqual({ token: Dep, optional: false });
    expect(paramToken(p, 1)).toEqual({ token: TOKEN, optional: false });
    expect(paramToken(p, 2)).toEqual({ token: MANY, optional: false });
    // The same facts, seen from what tsyringe builds: if it stopped reading our key, this resolves differently.
    const c = container.createChildContainer();
    c.register(TOKEN, { useValue: "by-token" });
    c.register(MANY, { useValue: "one" });
    c.register(MANY, { useValue: "two" });
    const built = c.resolve(Consumer);
    expect([built.dep instanceof Dep, built.named, built.many]).toEqual([true, "by-token", ["one", "two"]]);
  });

  it("an optional @inject is marked optional", () => {
    @injectable()
    class Maybe {
      constructor(@inject(TOKEN, { isOptional: true }) readonly named?: string) {}
    }
    expect(paramToken(constructorParams(Maybe), 0)).toEqual({ token: TOKEN, optional: true });
  });
});

describe("a constructor without decorator metadata", () => {
  // No decorator on the class: TypeScript writes no design:paramtypes, exactly as tsx/esbuild do for every class.
  class Bare {
    constructor(
      readonly dep: Dep,
      readonly other: Dep,
    ) {}
    run(): string {
      return "never";
    }
  }

  it("has no types, and its uncovered parameters are named", () => {
    const p = constructorParams(Bare);
    expect(p).toMatchObject({ count: 2, types: undefined });
    expect(uninjectableParams(p)).toEqual([0, 1]);
  });

  it("@Tool refuses it when applied: class, parameter count, why, and the fixes", () => {
    const err = (() => {
      try {
        Tool({ description: "Needs metadata." })(Bare);
      } catch (e) {
        return e as DefinitionError;
      }
      throw new Error("no error");
    })();
    expect(err).toBeInstanceOf(DefinitionError);
    expect([err.code, err.target, err.key]).toEqual(["definition", "Bare", "constructor"]);
    expect(err.message).toBe(
      "@Tool on Bare: its constructor takes 2 parameter(s), but the class carries no design:paramtypes metadata and none of them has @inject(Token), so the container cannot know what to pass. " +
        "Why: the build does not emit decorator metadata (tsx and esbuild never do, nor does vitest on vite 7). " +
        'Fix one of: build with tsc ("experimentalDecorators" and "emitDecoratorMetadata" on); run tests with vitest 4.1 on vite 8; use SWC with decorator metadata (jsc.transform.decoratorMetadata); or put @inject(Token) on each constructor parameter.',
    );
  });

  it("@inject on some parameters only: the others are named", () => {
    class Half {
      constructor(
        readonly dep: Dep,
        readonly named: string,
      ) {}
      run(): string {
        return "never";
      }
    }
    inject(TOKEN)(Half, undefined, 1);
    expect(() => Tool({ description: "Half covered." })(Half)).toThrow("parameter(s) 0 have no @inject(Token)");
  });

  it("@inject on every parameter is enough", () => {
    class Covered {
      constructor(readonly named: string) {}
      run(): string {
        return this.named;
      }
    }
    inject(TOKEN)(Covered, undefined, 0);
    expect(() => Tool({ description: "Covered." })(Covered)).not.toThrow();
  });
});
