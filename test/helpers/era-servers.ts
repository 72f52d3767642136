/**
 * @module test/helpers/era-servers
 * One MCP server per protocol era serving the same tools
 * (test/fixtures/servers/era-tools.mjs), for client suites that run
 * `describe.each(ERAS)`: `"2025-11-25"` is an SDK 1.x server (2025 only,
 * server-to-client requests), `"2026-07-28"` an SDK v2 server with
 * `legacy: "reject"` (2026-07-28 only, multi-round-trip `input_required`).
 * Both are real subprocesses over stdio, opened with the default
 * `protocol: "auto"`.
 */
import { fileURLToPath } from "node:url";
import { StdioServer } from "../../src/mcp/index.js";

/** The eras a client suite runs in, with the version `protocolVersion` must report. */
export const ERAS = [
  { era: "2025-11-25", server: "SDK 1.x server (2025 only)" },
  { era: "2026-07-28", server: "SDK v2 server, legacy 'reject' (2026-07-28 only)" },
] as const;

/** One of `ERAS`. */
export type Era = (typeof ERAS)[number]["era"];

const FIXTURE = { "2025-11-25": "era-v1-server.mjs", "2026-07-28": "era-v2-server.mjs" } as const satisfies Record<Era, string>;

/** A stdio config of the server for `era` (default protocol `"auto"`). */
export function eraServer(era: Era): StdioServer {
  return new StdioServer({
    command: process.execPath,
    args: [fileURLToPath(new URL(`../fixtures/servers/${FIXTURE[era]}`, import.meta.url))],
  });
}
