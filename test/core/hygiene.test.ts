/**
 * @module test/core/hygiene.test
 * The suite's own promise: deprecation warnings are errors in every test
 * worker (issue: "the whole test suite runs with deprecation warnings as
 * errors"). With --throw-deprecation Node throws the warning instead of
 * printing it, and vitest then fails the run with an unhandled error.
 */
import { expect, it } from "vitest";

it("test workers run with --throw-deprecation", () => {
  expect(process.execArgv).toContain("--throw-deprecation");
  expect(process.throwDeprecation).toBe(true);
});
