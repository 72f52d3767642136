/**
 * @module askers/terminal-asker
 * `TerminalAsker`: an `Asker` that puts each approval question to the person
 * at this process's terminal, one at a time, with the asking side's deadline
 * counting down. Built on the optional peers `@inquirer/core` and
 * `@inquirer/prompts` (see askers/prompt-library).
 */
import { userInfo } from "node:os";
import type { AskOptions, Asker, Decision, Elicitation } from "../contracts/elicitation.js";
import { OptionsError } from "../errors/options.error.js";
import { describeValue, errorLine, seconds } from "../util/format.js";
import { checkOptions, checkTimeoutMs, opt, type OptionRule } from "../options/option-checks.js";
import { approvalPrompt, type ApprovalPrompt, type PromptContext } from "./approval-prompt.js";
import { editInEditor } from "./edit-arguments.js";
import { noTerminal } from "./no-terminal.error.js";
import { PendingQuestion } from "./pending-question.js";
import { checkPromptLibrary, loadPromptLibrary, type PromptLibrary } from "./prompt-library.js";
import { clipMiddle, visible } from "../util/visible-text.js";
import { blankValues, emptyRequired, formContent, formValues, formValuesError, type FormValues } from "../agents/form-fields.js";
import { parseArguments, questionKind, toolArguments, toolLabel, visibleJson } from "./question-view.js";

/** Options of `new TerminalAsker()`. */
export interface TerminalAskerOptions {
  /** Where keys are read; must be a TTY. Default `process.stdin`. */
  readonly input?: NodeJS.ReadableStream;
  /** Where questions are drawn. Default `process.stdout`. */
  readonly output?: NodeJS.WritableStream;
  /**
   * The editor command for "modify", run as `/bin/sh -c '<editor> "<file>"'`
   * on this process's terminal. Default `$VISUAL`, then `$EDITOR` (read at
   * construction); `""` (or neither set) edits the arguments inline instead.
   */
  readonly editor?: string;
}

/** How long a withdrawn question's teardown may delay its `expired` answer. */
const EXPIRE_GRACE_MS = 1000;

/** The outcome of one "modify" attempt. */
/** The options a `TerminalAsker` accepts, declared once. */
const TERMINAL_ASKER_OPTIONS = {
  input: opt.that<NodeJS.ReadableStream>(
    (v) => typeof (v as NodeJS.ReadableStream | null)?.on === "function" && typeof (v as NodeJS.ReadableStream).read === "function",
    "a readable stream (a TTY, e.g. process.stdin)",
  ),
  output: opt.that<NodeJS.WritableStream>(
    (v) => typeof (v as NodeJS.WritableStream | null)?.write === "function",
    "a writable stream (e.g. process.stdout)",
  ),
  editor: opt.string('a command string (or "" to edit inline)'),
} satisfies Record<keyof TerminalAskerOptions, OptionRule<unknown>>;

type EditOutcome = { readonly value: Record<string, unknown> } | { readonly error?: string; readonly draft?: string };

/** Why a form cannot be sent yet (required fields left empty), or `undefined`. */
function emptyRequiredError(schema: Readonly<Record<string, unknown>> | undefined, values: FormValues): string | undefined {
  const missing = emptyRequired(schema, values);
  return missing.length > 0
    ? `required field(s) ${visible(JSON.stringify(missing))} are empty: press m to fill them in (nothing was sent)`
    : undefined;
}

/** Why the asking side gave up, in words, from its signal's reason. */
function givenUpWhy(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  const text = reason instanceof Error || reason instanceof DOMException ? reason.message : typeof reason === "string" ? reason : "";
  // A client's cancel reason is text from outside: made visible (no control or bidi character reaches the terminal), and bounded.
  const shown = clipMiddle(visible(text), 200);
  return shown ? `the asking side gave up (${shown})` : "the asking side gave up";
}

/** The actor recorded on a decision: the OS user name, or `"terminal"` when there is none. */
function osActor(): string {
  try {
    return userInfo().username || "terminal";
  } catch {
    return "terminal";
  }
}

/**
 * Asks on the terminal. `ask()` shows the tool name, the arguments as pretty
 * JSON, the question's `source` and the time left under its `timeoutMs`
 * (counting down); the person approves, rejects (with an optional note),
 * modifies (the arguments in `$EDITOR`, or inline, accepted only as a JSON
 * object; a refusal shows the parse error and asks again) or shows details.
 *
 * - One question at a time: later ones queue, and the menu shows how many wait.
 * - When a question's deadline fires it is withdrawn with a line saying so and
 *   answered `{ kind: "expired" }` (the asking server has already denied it).
 * - When `options.signal` aborts (the client cancelled or went away, the
 *   server stopped) the question disappears the same way, with one line
 *   naming why; a `TimeoutError` reason reads as the deadline.
 * - Ctrl-C while a question is pending rejects that question with the note
 *   `"interrupted"`; the process keeps running. While no question is pending,
 *   Ctrl-C does what it did before (a SIGINT handler is held only meanwhile).
 * - Decisions carry `actor`: the OS user name, or `"terminal"`.
 *
 * @throws OptionsError (constructor) for an unknown option or a value of the wrong kind, naming what is accepted.
 * @throws AgentkitError (code `no_terminal`) when `input` is not a TTY (use `ApprovalInbox`).
 * @throws MissingPeerError when `@inquirer/core` / `@inquirer/prompts` are not installed.
 */
export class TerminalAsker implements Asker {
  readonly #input: NodeJS.ReadableStream;
  readonly #output: NodeJS.WritableStream;
  readonly #editor: string;
  readonly #actor = osActor();
  readonly #queue: PendingQuestion[] = [];
  readonly #notices: string[] = [];
  #current: PendingQuestion | undefined;
  #running = false;
  readonly #onSigint = (): void => this.#current?.abort("interrupted");

  constructor(options: TerminalAskerOptions = {}) {
    const o = checkOptions(options, "TerminalAsker", TERMINAL_ASKER_OPTIONS);
    this.#input = o.input ?? process.stdin;
    this.#output = o.output ?? process.stdout;
    if ((this.#input as { isTTY?: boolean }).isTTY !== true) {
      throw noTerminal(o.input === undefined ? "process.stdin" : "the input stream");
    }
    this.#editor = (o.editor ?? (process.env.VISUAL || process.env.EDITOR || "")).trim();
    checkPromptLibrary();
  }

  /** Queues `request` and resolves with the person's `Decision` (or `expired` at its deadline, or when `options.signal` aborts). */
  ask(request: Elicitation, options?: AskOptions): Promise<Decision> {
    if (request === null || typeof request !== "object") {
      return Promise.reject(
        new OptionsError(
          "TerminalAsker.ask",
          "request",
          `TerminalAsker.ask: the request must be an Elicitation object, got ${describeValue(request)}`,
        ),
      );
    }
    let timeoutMs: number | undefined;
    try {
      timeoutMs = checkTimeoutMs(request.timeoutMs, "TerminalAsker.ask");
    } catch (err) {
      return Promise.reject(err);
    }
    const question = new PendingQuestion(request, timeoutMs, (q) => this.#onDeadline(q));
    const signal = options?.signal;
    if (signal?.aborted) {
      question.withdraw(givenUpWhy(signal));
      return question.decision;
    }
    this.#queue.push(question);
    if (signal) {
      const onAbort = (): void =>
        (signal.reason as { name?: unknown } | undefined)?.name === "TimeoutError"
          ? this.#onDeadline(question)
          : this.#onWithdrawn(question, givenUpWhy(signal));
      signal.addEventListener("abort", onAbort, { once: true });
      void question.decision.then(
        () => signal.removeEventListener("abort", onAbort),
        () => signal.removeEventListener("abort", onAbort),
      );
    }
    void this.#pump();
    return question.decision;
  }

  /** The asking side gave up: off the queue with a line, or, on screen, abort its prompt (#ended says so). */
  #onWithdrawn(q: PendingQuestion, why: string): void {
    if (q.settled) return;
    q.whyWithdrawn = why;
    const at = this.#queue.indexOf(q);
    if (at >= 0) {
      this.#queue.splice(at, 1);
      this.#notices.push(this.#goneLine(q));
      q.withdraw(why);
      return;
    }
    q.abort("withdrawn");
    setTimeout(() => q.withdraw(why), EXPIRE_GRACE_MS).unref();
  }

  #goneLine(q: PendingQuestion): string {
    return `⌫ ${toolLabel(q.request)} withdrawn: ${q.whyWithdrawn ?? "the asking side gave up"}; nobody waits for this answer any more.`;
  }

  #onDeadline(q: PendingQuestion): void {
    const at = this.#queue.indexOf(q);
    if (at >= 0) {
      this.#queue.splice(at, 1);
      this.#notices.push(this.#withdrawnLine(q, "while it waited in the queue"));
      q.expire();
      return;
    }
    // On screen: abort its prompt; #ended clears it, prints the withdrawal and
    // only then answers, so the caller's next output does not land inside a
    // prompt that is about to be erased. An editor that ignores SIGTERM must
    // not hold the answer past the deadline for long.
    q.abort("deadline");
    setTimeout(() => q.expire(), EXPIRE_GRACE_MS).unref();
  }

  #withdrawnLine(q: PendingQuestion, when: string): string {
    const deadline = q.request.timeoutMs === undefined ? "its deadline" : `its ${seconds(q.request.timeoutMs)} deadline`;
    return `⌛ ${toolLabel(q.request)} withdrawn ${when}: ${deadline} passed, so the server already denied it.`;
  }

  async #pump(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    process.on("SIGINT", this.#onSigint);
    try {
      const lib = await loadPromptLibrary();
      const menu = approvalPrompt(lib.core);
      for (let q = this.#queue.shift(); q; q = this.#queue.shift()) {
        this.#flushNotices();
        this.#current = q;
        await this.#answer(q, lib, menu);
        this.#current = undefined;
      }
      this.#flushNotices();
    } catch (err) {
      for (const q of [this.#current, ...this.#queue.splice(0)]) q?.fail(err);
    } finally {
      this.#current = undefined;
      this.#running = false;
      process.off("SIGINT", this.#onSigint);
    }
  }

  #flushNotices(): void {
    for (const line of this.#notices.splice(0)) this.#say(line);
  }

  #say(line: string): void {
    this.#output.write(`${line}\n`);
  }

  #context(q: PendingQuestion): PromptContext {
    return { input: this.#input, output: this.#output, signal: q.signal, clearPromptOnDone: true };
  }

  /** The terminal's size, read at every render (80x24 when the output is not a TTY). */
  #size(): { columns: number; rows: number } {
    const o = this.#output as { columns?: number; rows?: number };
    return { columns: o.columns ?? 80, rows: o.rows ?? 24 };
  }

  async #answer(q: PendingQuestion, lib: PromptLibrary, menu: ApprovalPrompt): Promise<void> {
    const tool = toolLabel(q.request);
    const schema = questionKind(q.request) === "form" ? q.request.form?.schema : undefined;
    let values = schema ? formValues(schema) : undefined;
    let error: string | undefined;
    let draft: string | undefined;
    try {
      for (;;) {
        const config = {
          elicitation: q.request,
          deadlineAt: q.deadlineAt,
          queued: () => this.#queue.length,
          error,
          values,
          size: () => this.#size(),
        };
        const choice = await menu(config, this.#context(q));
        if (choice === "approve") {
          error = values ? emptyRequiredError(schema, values) : undefined;
          if (error) continue;
          if (values)
            this.#decide(
              q,
              { kind: "approve", actor: this.#actor, value: formContent(values) },
              `✔ form sent: ${clipMiddle(visible(JSON.stringify(formContent(values))), 200)}`,
            );
          else this.#decide(q, { kind: "approve", actor: this.#actor }, `✔ ${tool} approved`);
          return;
        }
        if (choice === "reject") {
          const note = (await lib.prompts.input({ message: `Reject ${tool}: note (optional, Enter for none)` }, this.#context(q))).trim();
          this.#decide(
            q,
            { kind: "reject", actor: this.#actor, ...(note ? { note } : {}) },
            `✖ ${tool} rejected${note ? `: ${clipMiddle(visible(note), 200)}` : ""}`,
          );
          return;
        }
        const edited = await this.#modify(q, lib, draft, values);
        if ("value" in edited && values) {
          // A form's edited values are shown again; only "send" sends them.
          ({ values, error, draft } = { values: edited.value, error: undefined, draft: undefined });
          continue;
        }
        if ("value" in edited) {
          this.#decide(
            q,
            { kind: "modify", actor: this.#actor, value: edited.value },
            `✎ ${tool} approved with modified arguments ${clipMiddle(visible(JSON.stringify(edited.value), { style: "json" }), 400)}`,
          );
          return;
        }
        if (q.signal.aborted) throw q.signal.reason;
        ({ error, draft } = edited);
      }
    } catch (err) {
      this.#ended(q, err);
    }
  }

  #decide(q: PendingQuestion, decision: Decision, line: string): void {
    if (q.settled || q.abortCause !== undefined) return this.#ended(q, undefined); // the deadline or Ctrl-C won the race
    q.settle(decision);
    this.#say(line);
  }

  /** A prompt ended without an answer: the deadline, Ctrl-C, or a broken terminal. */
  #ended(q: PendingQuestion, err: unknown): void {
    const tool = toolLabel(q.request);
    const interrupted = q.abortCause === "interrupted" || (err instanceof Error && err.name === "ExitPromptError");
    if (q.abortCause === "withdrawn") {
      this.#say(this.#goneLine(q));
      q.withdraw(q.whyWithdrawn ?? "the asking side gave up");
    } else if (q.abortCause === "deadline" || (q.settled && !interrupted)) {
      this.#say(this.#withdrawnLine(q, "before it was answered"));
      q.expire();
    } else if (interrupted) {
      q.settle({ kind: "reject", actor: this.#actor, note: "interrupted" });
      this.#say(`✖ ${tool} rejected: interrupted (Ctrl-C)`);
    } else {
      this.#say(`✖ ${tool}: the terminal prompt failed (${errorLine(err)}); the question is answered with that error`);
      q.fail(err);
    }
  }

  /**
   * One modify attempt: the edited object (a form's values: checked against its fields), or why it was refused and the
   * text to start from next time.
   */
  async #modify(q: PendingQuestion, lib: PromptLibrary, draft: string | undefined, values: FormValues | undefined): Promise<EditOutcome> {
    const current = values ?? toolArguments(q.request);
    const check = (text: string): EditOutcome => {
      const parsed = parseArguments(text);
      if (!parsed.ok) return { error: parsed.error, draft: text };
      if (!values) return { value: parsed.value };
      const wrong = formValuesError(q.request.form?.schema, parsed.value);
      return wrong ? { error: wrong, draft: text } : { value: { ...blankValues(q.request.form?.schema), ...parsed.value } };
    };
    if (this.#editor === "") {
      const text = await lib.prompts.input(
        {
          message: values ? "Form values (JSON object, null = empty):" : "Arguments (JSON object):",
          default: draft ?? visible(JSON.stringify(current), { style: "json" }),
          prefill: "editable",
          validate: (t) => {
            const c = check(t);
            return "value" in c || (c.error ?? false);
          },
        },
        this.#context(q),
      );
      return check(text);
    }
    this.#say(
      `Opening ${visible(this.#editor)} on the ${values ? "form values" : "arguments"} (save and quit to continue; ` +
        `save an empty file to go back)…`,
    );
    const result = await editInEditor(this.#editor, draft ?? visibleJson(current), q.signal);
    if (!result.ok) return { error: result.error, draft };
    if (result.text.trim() === "") return {};
    const outcome = check(result.text);
    return "value" in outcome
      ? outcome
      : { error: `edited ${values ? "values" : "arguments"} refused, ${outcome.error}`, draft: result.text };
  }
}
