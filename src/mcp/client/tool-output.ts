/**
 * @module mcp/client/tool-output
 * The output check of a task's final result. The SDK `Client` checks a
 * `tools/call` answer against the `outputSchema` of its cached `tools/list`
 * itself; a task's result comes from `tasks/get`, which SDK 2.4 does not
 * know (it has no tasks runtime: typescript-sdk#2637, see task-codec.ts), so
 * it is checked here, with the SDK's rules, texts and error codes, against
 * the tools the client listed last.
 */
import type {
  CallToolResult,
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
  Tool as SdkTool,
} from "@modelcontextprotocol/client";
import type { ClientSdk } from "../peers/sdk-client.js";

/** Output checks of task results, from the latest listing. */
export class TaskOutputChecks {
  private tools: readonly SdkTool[] = [];
  private readonly validators = new WeakMap<SdkTool, JsonSchemaValidator<unknown>>();

  constructor(
    private readonly provider: jsonSchemaValidator,
    private readonly sdk: ClientSdk,
  ) {}

  /** Check against `tools` (a whole listing) from now on. */
  learn(tools: readonly SdkTool[]): void {
    this.tools = tools;
  }

  /**
   * After a task of tool `name` completed with `result`; an error result is not checked (as the SDK's own call check).
   *
   * @throws ProtocolError (InvalidRequest) when a tool with an output schema returned no structured content;
   *   (InvalidParams) when the structured content does not match the schema.
   */
  checkResult(name: string, result: CallToolResult): void {
    const tool = this.tools.find((t) => t.name === name);
    if (!tool?.outputSchema || result.isError) return;
    const { ProtocolError, ProtocolErrorCode } = this.sdk;
    if (result.structuredContent === undefined)
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `Tool ${name} has an output schema but did not return structured content`);
    let verdict: ReturnType<JsonSchemaValidator<unknown>>;
    try {
      let validator = this.validators.get(tool);
      if (!validator) this.validators.set(tool, (validator = this.provider.getValidator(tool.outputSchema as JsonSchemaType)));
      verdict = validator(result.structuredContent);
    } catch (err) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Failed to validate structured content: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    if (!verdict.valid)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Structured content does not match the tool's output schema: ${verdict.errorMessage}`,
      );
  }
}
