/**
 * @module test/core/helpers
 * Small shared factories for the core tests.
 */
import { expect } from "vitest";

type ErrorClass<E> = abstract new (...args: never[]) => E;

/** The error `fn` throws, checked to be an instance of `cls`; fails the test when nothing is thrown. */
export function thrown<E>(fn: () => unknown, cls: ErrorClass<E>): E {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(cls);
    return err as E;
  }
  throw new Error(`expected ${cls.name} to be thrown, nothing was`);
}

/** The error `promise` rejects with, checked to be an instance of `cls`; fails the test when it resolves. */
export async function rejected<E>(promise: Promise<unknown>, cls: ErrorClass<E>): Promise<E> {
  const err = await promise.then(
    (v) => {
      throw new Error(`expected a rejection with ${cls.name}, it resolved with ${JSON.stringify(v)}`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(cls);
  return err as E;
}

/**
 * Matches the one coded option error (`OptionsError`, code `options`), with
 * this exact message when one is given: `expect(fn).toThrow(optionsError("..."))`.
 */
export function optionsError(message?: string): unknown {
  return expect.objectContaining({ name: "OptionsError", code: "invalid_option", ...(message === undefined ? {} : { message }) });
}
