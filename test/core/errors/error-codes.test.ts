/**
 * @module test/core/errors/error-codes.test
 * `AgentkitError.code` is a closed union (`AgentkitErrorCode`), and every
 * error class a user may catch is exported from `arc-agentkit`: the type is
 * checked with expectTypeOf, and at run time every error class of every
 * entry point is built and its code looked up in the one list. A failure
 * with no fields of its own is an `AgentkitError` itself: its code is read
 * from where src/ builds one (`new AgentkitError("<code>", ...)`).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, expectTypeOf, it } from "vitest";
import * as root from "../../../src/index.js";
import {
  AgentkitError,
  CliRunError,
  InboxError,
  McpRequestError,
  ModelError,
  OptionsError,
  type AgentkitErrorCode,
  type ModelErrorCode,
} from "../../../src/index.js";
import * as askers from "../../../src/askers/index.js";
import * as cli from "../../../src/cli/index.js";
import * as express from "../../../src/express/index.js";
import * as mcp from "../../../src/mcp/index.js";
import * as models from "../../../src/models/index.js";
import * as otel from "../../../src/otel/index.js";
import * as testing from "../../../src/testing/index.js";
import { AGENTKIT_ERROR_CODES } from "../../../src/errors/error-codes.js";

type ErrorClass = abstract new (...args: never[]) => AgentkitError;

const SRC = fileURLToPath(new URL("../../../src/", import.meta.url));

/** Every code src/ throws as an `AgentkitError` itself (`new AgentkitError("<code>", ...)`), read from the sources. */
function ownCodes(): Set<string> {
  const codes = new Set<string>();
  for (const file of readdirSync(SRC, { recursive: true, encoding: "utf8" })) {
    if (!file.endsWith(".ts")) continue;
    for (const m of readFileSync(join(SRC, file), "utf8").matchAll(/new AgentkitError\(\s*"([a-z_]+)"/g)) codes.add(m[1]!);
  }
  return codes;
}

/** Every exported class that extends `AgentkitError`, by `entry:name`. */
function errorClasses(entries: Record<string, Record<string, unknown>>): Map<ErrorClass, string> {
  const out = new Map<ErrorClass, string>();
  for (const [entry, mod] of Object.entries(entries)) {
    for (const [name, value] of Object.entries(mod)) {
      if (
        typeof value === "function" &&
        (value === AgentkitError || value.prototype instanceof AgentkitError) &&
        !out.has(value as ErrorClass)
      )
        out.set(value as ErrorClass, `${entry}:${name}`);
    }
  }
  return out;
}

/** Arguments that build each class: strings for most; the classes whose caller picks the code get each code of their own union. */
function samples(cls: ErrorClass): unknown[][] {
  if (cls === root.ToolArgumentError) return [["tool", ["x"], [], [], ["a"]]];
  if (cls === AgentkitError) return [];
  const strings = ["a", "b", "c", "d"];
  return [strings];
}

const ENTRIES = {
  "arc-agentkit": root,
  "arc-agentkit/mcp": mcp,
  "arc-agentkit/cli": cli,
  "arc-agentkit/models": models,
  "arc-agentkit/askers": askers,
  "arc-agentkit/otel": otel,
  "arc-agentkit/express": express,
  "arc-agentkit/testing": testing,
};

describe("AgentkitError.code", () => {
  it("is the closed union AgentkitErrorCode, not a free string", () => {
    expectTypeOf<AgentkitError["code"]>().toEqualTypeOf<AgentkitErrorCode>();
    expectTypeOf<OptionsError["code"]>().toEqualTypeOf<AgentkitErrorCode>();
    expectTypeOf<"invalid_option">().toExtend<AgentkitErrorCode>();
    expectTypeOf<"options">().not.toExtend<AgentkitErrorCode>();
    expectTypeOf<string>().not.toExtend<AgentkitErrorCode>();
    // The classes whose caller passes the code take a subset of the union.
    expectTypeOf<ConstructorParameters<typeof CliRunError>[0]>().toExtend<AgentkitErrorCode>();
    expectTypeOf<ConstructorParameters<typeof InboxError>[0]>().toExtend<AgentkitErrorCode>();
    expectTypeOf<NonNullable<ConstructorParameters<typeof ModelError>[2]>>().toExtend<AgentkitErrorCode>();
    expectTypeOf<McpRequestError["code"]>().toExtend<AgentkitErrorCode>();
    // @ts-expect-error a code outside the union does not compile
    void new AgentkitError("options", "no such code");
  });

  it("OptionsError carries invalid_option, where and option", () => {
    const err = new OptionsError("HookServer", "timeoutMs", "HookServer: timeoutMs must be ...");
    expect(err).toMatchObject({ name: "OptionsError", code: "invalid_option", where: "HookServer", option: "timeoutMs" });
    expect(err).toBeInstanceOf(AgentkitError);
  });

  it("every error class of every entry point builds with a code from the one list", () => {
    const classes = errorClasses(ENTRIES);
    expect(classes.size).toBeGreaterThan(15);
    const codes = new Set<string>(AGENTKIT_ERROR_CODES);
    const outside: string[] = [];
    for (const [cls, name] of classes) {
      if (cls === CliRunError || cls === InboxError || cls === ModelError) continue; // the caller's code: checked by type above and by the literals below
      for (const args of samples(cls)) {
        const err = Reflect.construct(cls, args) as AgentkitError;
        if (!codes.has(err.code)) outside.push(`${name}: ${err.code}`);
      }
    }
    for (const code of ["cli_spawn", "cli_failed", "cli_timeout", "cli_no_result"] as const)
      expect(codes.has(new CliRunError(code, "claude", "m").code)).toBe(true);
    for (const code of ["inbox_stopped", "inbox_state", "inbox_full", "inbox_store"] as const)
      expect(codes.has(new InboxError(code, "m").code)).toBe(true);
    expect(new McpRequestError("tools/call 'a'", "s", undefined, "gone", "", { renewed: true }).code).toBe("mcp_session_lost");
    const own = [...ownCodes()];
    expect(own.length).toBeGreaterThan(5);
    expect(own.filter((code) => !codes.has(code))).toEqual([]);
    expect(codes.has(new ModelError({ provider: "p", providerMessage: "m" }).code)).toBe(true);
    expect(outside).toEqual([]);
  });

  it("every error class a user may catch, from any entry point, is exported from arc-agentkit", () => {
    const rootClasses = new Set(errorClasses({ "arc-agentkit": root }).keys());
    const missing = [...errorClasses(ENTRIES)].filter(([cls]) => !rootClasses.has(cls)).map(([, name]) => name);
    expect(missing).toEqual([]);
    expect(root.OptionsError).toBe(OptionsError);
    expect(root.MissingPeerError.prototype).toBeInstanceOf(AgentkitError);
  });

  it("a code is in the union only when an error a user can receive carries it (listener_closed, an internal listener's, is not)", () => {
    expectTypeOf<"listener_closed">().not.toExtend<AgentkitErrorCode>();
    const carried = new Set<string>();
    for (const cls of errorClasses(ENTRIES).keys()) {
      if (cls === CliRunError || cls === InboxError || cls === ModelError) continue;
      for (const args of samples(cls)) carried.add((Reflect.construct(cls, args) as AgentkitError).code);
    }
    // The classes whose caller picks the code: every code of their own union.
    for (const code of ["cli_spawn", "cli_failed", "cli_timeout", "cli_mcp_not_connected", "cli_no_result"] as const)
      carried.add(new CliRunError(code, "claude", "m").code);
    for (const code of ["inbox_stopped", "inbox_state", "inbox_full", "inbox_store"] as const) carried.add(new InboxError(code, "m").code);
    carried.add(new McpRequestError("tools/call 'a'", "s", undefined, "gone", "", { renewed: false }).code);
    // The failures thrown as AgentkitError itself, told apart by code alone.
    for (const code of ownCodes()) carried.add(code);
    for (const code of AGENTKIT_ERROR_CODES.filter((c) => c.startsWith("model_")))
      carried.add(new ModelError({ provider: "p", providerMessage: "m" }, "m", code as ModelErrorCode).code);
    // The agentkit program's own failures: it prints them and exits with their code (1 or 2), a user of the program reads them.
    for (const code of ["cli", "cli_usage"]) carried.add(code);
    expect(AGENTKIT_ERROR_CODES.filter((code) => !carried.has(code))).toEqual([]);
  });
});
