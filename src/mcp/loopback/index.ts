/**
 * @module mcp/loopback
 * The loopback MCP listener, its pure checks and the 0600 config-file writer.
 */
export { LoopbackMcpTransport } from "./loopback-transport.js";
export type { LoopbackOptions } from "./loopback-transport.js";
export { LoopbackOptionsError, McpConfigFileError } from "./loopback.error.js";
export { checkBearer, checkHost, checkOrigin, generateToken, isLoopbackHost, tokenDigest } from "./loopback-checks.js";
export type { CheckResult } from "./loopback-checks.js";
export { writeMcpConfig, rewriteMcpConfig, removeMcpConfig } from "./mcp-config-file.js";
export type { WrittenMcpConfig } from "./mcp-config-file.js";
