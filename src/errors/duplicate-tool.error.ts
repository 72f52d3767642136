/**
 * @module errors/duplicate-tool.error
 * Raised when two tools claim one name.
 */
import { AgentkitError } from "./agentkit.error.js";

/** A registry refused a second tool under a name it already holds. */
export class DuplicateToolError extends AgentkitError {
  constructor(
    /** The contested name. */
    readonly toolName: string,
    /** Who registered the name first (class or function name). */
    readonly existingOwner: string,
    /** Who tried to register it again. */
    readonly incomingOwner: string,
    context = "registry",
  ) {
    super(
      "duplicate_tool",
      `duplicate tool name '${toolName}' in ${context}: already registered by ${existingOwner}, refused for ` +
        `${incomingOwner}. Rename one of them (the 'name' option of @Tool/tool()).`,
    );
  }
}
