/**
 * @module wire/toml.error
 * A value that TOML (a Codex `-c` override) cannot carry.
 */
import { AgentkitError } from "../errors/agentkit.error.js";

/** Thrown for a value or key TOML cannot carry (undefined, null, a function, a non-finite key segment). */
export class TomlEncodeError extends AgentkitError {
  constructor(message: string) {
    super("toml_encode", message);
  }
}
