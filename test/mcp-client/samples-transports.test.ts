/**
 * @module test/mcp-client/samples-transports.test
 * samples/mcp-transports.ts (built): frozen configs, identity without env/headers, forceRefresh against a real server.
 */
import { expect, it } from "vitest";
import { runSample } from "../helpers/run-sample.js";

it("mcp-transports: both configs frozen (their env and headers too), identity ignores env and headers, the list cache hands out copies and forceRefresh refetches", async () => {
  expect(await runSample("mcp-transports")).toBe(
    [
      "frozen:               true true true true",
      "env not identity:     true",
      "headers not identity: true",
      "edit after review:    TypeError",
      "cached is a copy:     true",
      "refreshed:            [ 'queue_depth' ] true",
      "",
    ].join("\n"),
  );
});
