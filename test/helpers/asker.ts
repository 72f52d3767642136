/**
 * @module test/helpers/asker
 * The scripted person of the tests: an `Asker` that answers without a person,
 * recording every question it was asked (`seen`) and the options each came
 * with (`options`, in the same order), so a test can say what was asked.
 * `askerAnswering(answer)` answers every question the same way (or as a
 * function of the question decides); `askerScripted(...answers)` answers each
 * question with the next answer and throws, naming the question, once they
 * run out.
 */
import type { AskOptions, Asker, Decision, Elicitation } from "../../src/index.js";

/** A decision, or a function of the question (and its options) that makes one. */
export type Answer = Decision | ((request: Elicitation, options: AskOptions | undefined) => Decision | Promise<Decision>);

/** An Asker that records what it was asked. */
export interface ScriptedAsker extends Asker {
  /** Every question asked, oldest first. */
  readonly seen: Elicitation[];
  /** The options each question came with, in the order of `seen`. */
  readonly options: Array<AskOptions | undefined>;
}

/** An Asker answering every question with `answer` (a function decides per question). */
export function askerAnswering(answer: Answer): ScriptedAsker {
  const seen: Elicitation[] = [];
  const options: Array<AskOptions | undefined> = [];
  return {
    seen,
    options,
    ask: async (request, opts) => {
      seen.push(request);
      options.push(opts);
      return typeof answer === "function" ? answer(request, opts) : answer;
    },
  };
}

/** An Asker answering the questions in turn with `answers`; one more question than answers throws, naming it. */
export function askerScripted(...answers: Decision[]): ScriptedAsker {
  const left = [...answers];
  return askerAnswering((request) => {
    const next = left.shift();
    if (!next) throw new Error(`scripted Asker: no answer left for ${JSON.stringify(request.question)}`);
    return next;
  });
}
