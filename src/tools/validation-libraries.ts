/**
 * @module tools/validation-libraries
 * The validation libraries (class-validator with class-transformer and
 * class-validator-jsonschema for DTO classes; ajv with ajv-formats for JSON
 * Schema), loaded on first use instead of when the package is imported: a
 * program that validates nothing (a client, `agentkit runs`, the inbox) does
 * not load their ~450 CommonJS files, which were more than half of a cold
 * `import("arc-agentkit")`. Loaded with `require`, so validation stays
 * synchronous. These packages have no `exports` map and their `main` is
 * CommonJS, so an app's own `import "class-validator"` resolves to the same
 * file and shares this copy (and its decorators' metadata).
 */
import type * as ClassTransformer from "class-transformer";
import type * as ClassTransformerStorage from "class-transformer/cjs/storage.js";
import type * as ClassValidator from "class-validator";
import type * as ClassValidatorJsonSchema from "class-validator-jsonschema";
import type * as AjvDraft07 from "ajv";
import type * as Ajv2019 from "ajv/dist/2019.js";
import type * as Ajv2020 from "ajv/dist/2020.js";
import type { Ajv } from "ajv";
import { lazyDependency } from "../util/optional-peer.js";

/** `class-validator` (`validateSync`, `getMetadataStorage`). */
export const classValidator = lazyDependency<typeof ClassValidator>("class-validator");
/** `class-transformer` (`plainToInstance`). */
export const classTransformer = lazyDependency<typeof ClassTransformer>("class-transformer");
/** class-transformer's metadata storage (its `@Type`s), which class-validator-jsonschema reads for nested DTOs. */
export const classTransformerStorage = lazyDependency<typeof ClassTransformerStorage>("class-transformer/cjs/storage.js");
/** `class-validator-jsonschema` (a DTO class's JSON Schema). */
export const classValidatorJsonSchema = lazyDependency<typeof ClassValidatorJsonSchema>("class-validator-jsonschema");
/** ajv's draft-07 engine. */
export const ajvDraft07 = lazyDependency<typeof AjvDraft07>("ajv");
/** ajv's 2019-09 engine. */
export const ajv2019 = lazyDependency<typeof Ajv2019>("ajv/dist/2019.js");
/** ajv's 2020-12 engine. */
export const ajv2020 = lazyDependency<typeof Ajv2020>("ajv/dist/2020.js");
/** ajv-formats' plugin (its CommonJS export is the function). */
export const ajvFormats = lazyDependency<(ajv: Ajv) => Ajv>("ajv-formats");
