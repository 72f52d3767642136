/**
 * @module test/core/util/logger.test
 * The package logger (src/util/logger.ts): stderr for warnings and errors by
 * default, replaceable.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { getLogger, setLogger, type Logger } from "../../../src/index.js";

const original = getLogger();
afterEach(() => {
  setLogger(original);
  vi.restoreAllMocks();
});

describe("logger", () => {
  it("by default writes warnings and errors to stderr, nothing else", () => {
    const writes: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      writes.push(String(chunk));
      return true;
    });
    const log = getLogger();
    log.debug("d");
    log.info("i");
    log.warn("careful");
    log.error("broken");
    expect(writes).toEqual(["careful\n", "broken\n"]);
  });

  it("setLogger replaces it and returns the previous one", () => {
    const lines: string[] = [];
    const mine: Logger = { debug: (m) => lines.push(`d ${m}`), info: (m) => lines.push(`i ${m}`), warn: (m) => lines.push(`w ${m}`), error: (m) => lines.push(`e ${m}`) };
    expect(setLogger(mine)).toBe(original);
    getLogger().info("hello");
    expect(lines).toEqual(["i hello"]);
    expect(setLogger(original)).toBe(mine);
  });
});
