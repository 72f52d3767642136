/**
 * @module askers/edit-arguments
 * Opens a tool call's arguments in the person's editor and reads them back.
 * The editor command runs through `/bin/sh -c '<editor> "$1"'` (as git runs
 * `$EDITOR`), so a command with flags such as `code --wait` works and the file
 * name is never spliced into a shell string. The file lives in a fresh 0700
 * temp directory (the arguments may hold secrets) and is removed afterwards.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** What came back from the editor. */
export type EditorResult = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly error: string };

/**
 * Runs `editor` on a temp file holding `text` on this process's terminal
 * (fds 0-2, whatever `TerminalAsker`'s input/output are), and resolves with the
 * saved text. Aborting `signal` ends the editor (SIGTERM). A non-zero exit or a
 * failed launch resolves `{ ok: false }` naming the command; never rejects.
 */
export async function editInEditor(editor: string, text: string, signal: AbortSignal): Promise<EditorResult> {
  const dir = mkdtempSync(join(tmpdir(), "agentkit-args-"));
  const file = join(dir, "arguments.json");
  try {
    writeFileSync(file, text, { mode: 0o600 });
    const outcome = await runEditor(editor, file, signal);
    if (outcome !== undefined) return { ok: false, error: outcome };
    return { ok: true, text: readFileSync(file, "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function runEditor(editor: string, file: string, signal: AbortSignal): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn("/bin/sh", ["-c", `${editor} "$1"`, "sh", file], { stdio: "inherit", signal });
    child.once("error", (err) => {
      if ((err as NodeJS.ErrnoException).name !== "AbortError") resolve(`could not start the editor '${editor}': ${err.message}`);
    });
    child.once("close", (code, sig) => {
      if (code === 0) resolve(undefined);
      else resolve(`the editor '${editor}' ${sig ? `was ended by ${sig}` : `exited with code ${code}`}; the arguments were not changed`);
    });
  });
}
