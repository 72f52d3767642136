/**
 * @module errors
 * Every error class of the core.
 */
export { AgentkitError, type AgentkitErrorCode } from "./agentkit.error.js";
export { ToolArgumentError, type InvalidArgument } from "./tool-argument.error.js";
export { Cancelled } from "./cancelled.error.js";
export { ClientGaveUp } from "./client-gave-up.error.js";
export { NotImplementedError } from "./not-implemented.error.js";
export { DuplicateToolError } from "./duplicate-tool.error.js";
export { DefinitionError } from "./tool-definition.error.js";
export { OptionsError } from "./options.error.js";
export { MissingPeerError } from "./missing-peer.error.js";
export { RunResumeError, type RunResumeFailure } from "./run-resume.error.js";
