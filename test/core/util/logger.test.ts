/**
 * @module test/core/util/logger.test
 * The package logger (src/util/logger.ts): stderr for warnings and errors by
 * default, replaceable; `ignoreRejection` logs a dropped rejection at debug as
 * the one error line (`errorLine`).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { setLogger, type Logger } from "../../../src/index.js";
import { getLogger } from "../../../src/util/logger.js";
import { ignoreRejection } from "../../../src/util/logger.js";
import { errorLine } from "../../../src/util/format.js";

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
    const mine: Logger = {
      debug: (m) => lines.push(`d ${m}`),
      info: (m) => lines.push(`i ${m}`),
      warn: (m) => lines.push(`w ${m}`),
      error: (m) => lines.push(`e ${m}`),
    };
    expect(setLogger(mine)).toBe(original);
    getLogger().info("hello");
    expect(lines).toEqual(["i hello"]);
    expect(setLogger(original)).toBe(mine);
  });

  it("ignoreRejection writes the dropped error at debug as the one error line, a hostile one too", () => {
    const lines: string[] = [];
    setLogger({ debug: (m) => lines.push(m), info: () => {}, warn: () => {}, error: () => {} });
    class PeerGoneError extends Error {}
    const hostile = new Error("x");
    Object.defineProperty(hostile, "message", {
      get: () => {
        throw new Error("no reading me");
      },
    });
    ignoreRejection("closing the peer")(new PeerGoneError("the peer left"));
    ignoreRejection("a best-effort write")("a bare string");
    ignoreRejection("teardown")(hostile);
    expect(lines).toEqual([
      `ignored: closing the peer: ${errorLine(new PeerGoneError("the peer left"))}`,
      `ignored: a best-effort write: ${errorLine("a bare string")}`,
      "ignored: teardown: an error that could not be read",
    ]);
    expect(lines[0]).toBe("ignored: closing the peer: PeerGoneError: the peer left");
  });
});
