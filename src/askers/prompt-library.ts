/**
 * @module askers/prompt-library
 * The one place the prompt library (`@inquirer/core` and `@inquirer/prompts`,
 * optional peers) is loaded. Both are ESM-only, so they are loaded with a
 * dynamic `import()` on first use; `checkPromptLibrary()` resolves them
 * synchronously so a constructor can fail early with the install line.
 * Importing `arc-agentkit/askers` never needs them.
 */
import type * as CoreModule from "@inquirer/core";
import type * as PromptsModule from "@inquirer/prompts";
import { MissingPeerError } from "../errors/missing-peer.error.js";

/** The line that installs the optional peers `TerminalAsker` needs. */
export const PROMPTS_INSTALL_LINE = "npm install @inquirer/core @inquirer/prompts";

const PEERS = ["@inquirer/core", "@inquirer/prompts"] as const;

/** The loaded prompt library. */
export interface PromptLibrary {
  readonly core: typeof CoreModule;
  readonly prompts: typeof PromptsModule;
}

function missing(id: string, cause: unknown): MissingPeerError {
  return new MissingPeerError(
    id,
    PROMPTS_INSTALL_LINE,
    `TerminalAsker needs the optional peer dependencies @inquirer/core and @inquirer/prompts, and '${id}' could ` +
      `not be found. Install them with: ${PROMPTS_INSTALL_LINE}`,
    { cause },
  );
}

/** Throws `MissingPeerError` (with the install line) unless both peers resolve from here. */
export function checkPromptLibrary(): void {
  for (const id of PEERS) {
    try {
      import.meta.resolve(id);
    } catch (err) {
      throw missing(id, err);
    }
  }
}

let loading: Promise<PromptLibrary> | undefined;

/** Loads both peers once; rejects with `MissingPeerError` when one cannot be loaded. */
export function loadPromptLibrary(): Promise<PromptLibrary> {
  loading ??= (async () => {
    checkPromptLibrary();
    const [core, prompts] = await Promise.all([import("@inquirer/core"), import("@inquirer/prompts")]);
    return { core, prompts };
  })();
  return loading;
}
