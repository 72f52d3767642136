/**
 * @module util/package-version
 * This package's version, read once from its package.json: what servers
 * announce as their implementation version and what names the tracing scope.
 */
import { createRequire } from "node:module";

/** The version of arc-agentkit that is running (package.json's `version`). */
export const PACKAGE_VERSION = (createRequire(import.meta.url)("../../package.json") as { version: string }).version;
