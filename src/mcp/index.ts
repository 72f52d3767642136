/**
 * @module arc-agentkit/mcp
 * Public surface of the MCP integration. Every export is listed by name; a
 * test snapshots the sorted names. The first import is the peer guard: without
 * @modelcontextprotocol/sdk and express this module throws at once with the
 * install line.
 */
import "reflect-metadata";
export { INSTALL_LINE } from "./sdk.js";
export * from "./client/index.js";
export * from "./loopback/index.js";
export * from "./approvals/index.js";
export * from "./serve/index.js";
export * from "./di/index.js";
