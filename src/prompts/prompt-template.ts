/**
 * @module prompts/prompt-template
 * `PromptTemplate`: a named, versioned template (the MCP layer's `@Prompt`
 * decorator is another thing: a served prompt class).
 */
import { OptionsError } from "../errors/options.error.js";

/** A named, versioned prompt template. `{{name}}` placeholders are filled by `render`. */
export class PromptTemplate {
  readonly name: string;
  readonly template: string;
  readonly version: string;

  constructor(options: { name: string; template: string; version?: string }) {
    if (typeof options?.name !== "string" || !options.name) throw new OptionsError("PromptTemplate", "name", "PromptTemplate: 'name' is required");
    if (typeof options.template !== "string") throw new OptionsError("PromptTemplate", "template", `PromptTemplate '${options.name}': 'template' must be a string`);
    this.name = options.name;
    this.template = options.template;
    this.version = options.version ?? "1";
    Object.freeze(this);
  }

  /** Fill `{{key}}` placeholders; throws naming a placeholder that has no value. */
  render(values: Record<string, unknown> = {}): string {
    return this.template.replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (_, key: string) => {
      if (!(key in values)) throw new OptionsError("PromptTemplate.render", "values", `PromptTemplate '${this.name}': no value for placeholder '${key}'`);
      return String(values[key]);
    });
  }
}
