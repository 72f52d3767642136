/**
 * @module mcp/client/tool-output
 * The checks `MCPClient.callTool` makes from the listed tools: a tool with an
 * `outputSchema` must return `structuredContent` that matches it (unless the
 * result is an error), and a tool whose `execution.taskSupport` is
 * `"required"` is not called directly. These are the SDK `Client`'s own
 * checks, with its texts and error codes; they live here because the
 * client walks the pages itself (so that a server repeating its cursor is
 * refused, not cut short silently as the SDK 2.4 walk does), and the SDK
 * checks only against a listing it aggregated and cached itself. The session
 * lists with plain requests, so its own checks never run twice.
 */
import type { CallToolResult, JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator, Tool as SdkTool } from "@modelcontextprotocol/client";
import type { ClientSdk } from "./sdk-client.js";

/** Output checks for the tools of the latest complete listing (every page). */
export class ToolOutputChecks {
  private validators = new Map<string, JsonSchemaValidator<unknown>>();
  private taskRequired = new Set<string>();

  constructor(
    private readonly provider: jsonSchemaValidator,
    private readonly sdk: ClientSdk,
  ) {}

  private error(code: "InvalidRequest" | "InvalidParams", message: string): Error {
    return new this.sdk.ProtocolError(this.sdk.ProtocolErrorCode[code], message);
  }

  /** Replace the checks with those of `tools` (a whole listing). */
  learn(tools: readonly SdkTool[]): void {
    const validators = new Map<string, JsonSchemaValidator<unknown>>();
    const taskRequired = new Set<string>();
    for (const tool of tools) {
      if (tool.outputSchema) validators.set(tool.name, this.provider.getValidator(tool.outputSchema as JsonSchemaType));
      if (tool.execution?.taskSupport === "required") taskRequired.add(tool.name);
    }
    this.validators = validators;
    this.taskRequired = taskRequired;
  }

  /**
   * Before calling `name`.
   *
   * @throws ProtocolError (InvalidRequest) when the tool requires task-based execution.
   */
  checkCall(name: string): void {
    if (this.taskRequired.has(name)) {
      throw this.error("InvalidRequest", `Tool "${name}" requires task-based execution. Use client.experimental.tasks.callToolStream() instead.`);
    }
  }

  /**
   * After `name` answered `result`.
   *
   * @throws ProtocolError (InvalidRequest) when a tool with an output schema returned no structured content;
   *   (InvalidParams) when the structured content does not match the schema.
   */
  checkResult(name: string, result: CallToolResult): void {
    const validator = this.validators.get(name);
    if (!validator) return;
    if (!result.structuredContent) {
      if (result.isError) return;
      throw this.error("InvalidRequest", `Tool ${name} has an output schema but did not return structured content`);
    }
    let verdict: ReturnType<JsonSchemaValidator<unknown>>;
    try {
      verdict = validator(result.structuredContent);
    } catch (err) {
      throw this.error("InvalidParams", `Failed to validate structured content: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!verdict.valid) throw this.error("InvalidParams", `Structured content does not match the tool's output schema: ${verdict.errorMessage}`);
  }
}
