/**
 * @module agents/form-fields
 * A form-mode elicitation's fields as a person sees them: each field's name,
 * type, whether it is required and its value. The values a person is shown
 * are exactly the values sent: a field starts at the schema's default (shown)
 * or empty (`null`, not sent), and nothing is filled in after the person
 * answers. Pure.
 */

/** One field of a requested form. */
export interface FormField {
  readonly name: string;
  /** The schema's `type` (`string`, `number`, `integer`, `boolean`, `array`), or `"any"`. */
  readonly type: string;
  readonly required: boolean;
  readonly title?: string;
  readonly description?: string;
  /** The allowed values, when the schema lists them. */
  readonly options?: readonly unknown[];
}

/** The form values as shown: field name -> value, `null` for a field left empty (not sent). */
export type FormValues = Readonly<Record<string, unknown>>;

type Schema = Readonly<Record<string, unknown>>;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** The fields of a requested schema (a flat object of primitives), in the schema's order. Never throws. */
export function formFields(schema: Schema | undefined): FormField[] {
  const props = isObject(schema?.properties) ? schema.properties : {};
  const required = Array.isArray(schema?.required) ? schema.required.filter((r): r is string => typeof r === "string") : [];
  return Object.entries(props).map(([name, raw]) => {
    const p = isObject(raw) ? raw : {};
    const options = Array.isArray(p.enum) ? p.enum : Array.isArray(p.oneOf) ? p.oneOf.map((o) => (isObject(o) ? o.const : o)) : undefined;
    return {
      name,
      type: typeof p.type === "string" ? p.type : "any",
      required: required.includes(name),
      ...(typeof p.title === "string" ? { title: p.title } : {}),
      ...(typeof p.description === "string" ? { description: p.description } : {}),
      ...(options ? { options } : {}),
    };
  });
}

/** The values a form starts with: each field's schema `default`, or `null` (empty, not sent). */
export function formValues(schema: Schema | undefined): FormValues {
  const props = isObject(schema?.properties) ? schema.properties : {};
  return Object.fromEntries(Object.entries(props).map(([name, p]) => [name, isObject(p) && p.default !== undefined ? p.default : null]));
}

/** Every field empty (`null`): what edited values start from, so a field left out of an edit is empty, not a default. */
export function blankValues(schema: Schema | undefined): FormValues {
  return Object.fromEntries(formFields(schema).map((f) => [f.name, null]));
}

/** What is sent for `values`: every non-empty field, exactly as shown (nothing added). */
export function formContent(values: FormValues): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== null && v !== undefined));
}

/**
 * Checks values a person edited against the form: only the form's fields,
 * each a string, number, boolean, list of strings or `null` (empty). Returns
 * why not, naming the field and what is accepted, or `undefined` when fine.
 */
export function formValuesError(schema: Schema | undefined, values: Record<string, unknown>): string | undefined {
  const fields = formFields(schema).map((f) => f.name);
  const unknown = Object.keys(values).filter((k) => !fields.includes(k));
  if (unknown.length > 0) return `not a field of this form: ${JSON.stringify(unknown)}. The form's fields: ${JSON.stringify(fields)}`;
  for (const [k, v] of Object.entries(values)) {
    const ok =
      v === null || ["string", "number", "boolean"].includes(typeof v) || (Array.isArray(v) && v.every((x) => typeof x === "string"));
    if (!ok)
      return (
        `field ${JSON.stringify(k)} must be a string, number, boolean, list of strings or null (left empty), got ` +
        `${Array.isArray(v) ? "a list" : typeof v}`
      );
  }
  return undefined;
}

/** The required fields left empty in `values` (they must be filled before the form is sent). */
export function emptyRequired(schema: Schema | undefined, values: FormValues): string[] {
  return formFields(schema)
    .filter((f) => f.required && (values[f.name] === null || values[f.name] === undefined || values[f.name] === ""))
    .map((f) => f.name);
}
