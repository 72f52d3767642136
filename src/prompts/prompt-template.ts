/**
 * @module prompts/prompt-template
 * `PromptTemplate`: a named, versioned template (the MCP layer's `@Prompt`
 * decorator is another thing: a served prompt class).
 */
import { OptionsError } from "../errors/options.error.js";
import { checkOptions, opt } from "../options/option-checks.js";

/** The options a `PromptTemplate` accepts, declared once. */
const PROMPT_TEMPLATE_OPTIONS = {
  name: opt.nonEmptyString("a non-empty string"),
  template: opt.required(opt.string("a string with {{placeholders}}"), "a string with {{placeholders}}"),
  version: opt.string('a string such as "2"', true),
} as const;

/** A named, versioned prompt template. `{{name}}` placeholders are filled by `render`. */
export class PromptTemplate {
  readonly name: string;
  readonly template: string;
  readonly version: string;

  /**
   * @throws OptionsError for an unknown option, a missing required one or a
   *   value of the wrong kind (or `null` options), naming what is accepted.
   */
  constructor(options: { name: string; template: string; version?: string }) {
    const o = checkOptions(options, "PromptTemplate", PROMPT_TEMPLATE_OPTIONS);
    this.name = o.name;
    this.template = o.template;
    this.version = o.version ?? "1";
    Object.freeze(this);
  }

  /** Fill `{{key}}` placeholders; throws naming a placeholder that has no value. */
  render(values: Record<string, unknown> = {}): string {
    return this.template.replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (_, key: string) => {
      if (!(key in values))
        throw new OptionsError("PromptTemplate.render", "values", `PromptTemplate '${this.name}': no value for placeholder '${key}'`);
      return String(values[key]);
    });
  }
}
