/**
 * @module mcp/loopback
 * The loopback MCP listener, its pure checks and the 0600 config-file writer.
 */
export { LoopbackMcpTransport } from "./loopback-transport.js";
export type { LoopbackOptions } from "./loopback-transport.js";
export { McpConfigFileError } from "../../wire/mcp-config-file.error.js";
export { checkBearer, checkHost, checkOrigin, generateToken, isLoopbackHost, tokenDigest } from "../../listener/loopback-checks.js";
export type { CheckResult } from "../../listener/loopback-checks.js";
export { writeMcpConfig, rewriteMcpConfig, removeMcpConfig } from "../../wire/mcp-config-file.js";
export type { WrittenMcpConfig } from "../../wire/mcp-config-file.js";
