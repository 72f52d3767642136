/**
 * @module askers/approval-prompt
 * The menu a `TerminalAsker` shows for one question, built on
 * `@inquirer/core`'s `createPrompt`: the question (see question-view), a
 * countdown and the queued count re-rendered twice a second, and the answers
 * approve / reject / modify / details, picked by arrow keys and Enter or by
 * their first letter.
 */
import type * as CoreModule from "@inquirer/core";
import type { Elicitation } from "../agents/elicitation.js";
import { questionLines } from "./question-view.js";

/** What the person picked in the menu (details is handled inside it). */
export type MenuChoice = "approve" | "reject" | "modify";

/** The menu's configuration. */
export interface ApprovalPromptConfig {
  readonly elicitation: Elicitation;
  readonly deadlineAt?: number;
  /** Read at every render: questions waiting behind this one. */
  readonly queued: () => number;
  /** A line shown under the menu (e.g. why edited arguments were refused). */
  readonly error?: string;
}

/** Where a prompt runs and what ends it (the prompt library's context, restated so no peer type leaks). */
export interface PromptContext {
  readonly input?: NodeJS.ReadableStream;
  readonly output?: NodeJS.WritableStream;
  /** Aborting rejects the prompt with the library's `AbortPromptError`. */
  readonly signal?: AbortSignal;
  readonly clearPromptOnDone?: boolean;
}

/** The menu prompt: resolves with the person's choice. */
export type ApprovalPrompt = (config: ApprovalPromptConfig, context?: PromptContext) => Promise<MenuChoice>;

const ITEMS = [
  { key: "a", label: "approve", choice: "approve" },
  { key: "r", label: "reject (with an optional note)", choice: "reject" },
  { key: "m", label: "modify the arguments", choice: "modify" },
  { key: "d", label: "show details", choice: "details" },
] as const;

/** How often the countdown and the queued count are redrawn. */
const TICK_MS = 500;

/** Builds the menu prompt from the loaded `@inquirer/core`. */
export function approvalPrompt(core: typeof CoreModule): ApprovalPrompt {
  const { createPrompt, useState, useEffect, useKeypress, isEnterKey, isUpKey, isDownKey } = core;
  return createPrompt<MenuChoice, ApprovalPromptConfig>((config, done) => {
    const [cursor, setCursor] = useState(0);
    const [details, setDetails] = useState(false);
    const [, setTick] = useState(0);
    useEffect(() => {
      const timer = setInterval(() => setTick((n) => n + 1), TICK_MS);
      return () => clearInterval(timer);
    }, []);
    const pick = (index: number): void => {
      const item = ITEMS[index]!;
      if (item.choice === "details") setDetails(!details);
      else done(item.choice);
    };
    useKeypress((key) => {
      if (isUpKey(key)) setCursor((cursor + ITEMS.length - 1) % ITEMS.length);
      else if (isDownKey(key)) setCursor((cursor + 1) % ITEMS.length);
      else if (isEnterKey(key)) pick(cursor);
      else {
        const index = ITEMS.findIndex((i) => i.key === key.name && !key.ctrl);
        if (index >= 0) pick(index);
      }
    });
    const state = { now: Date.now(), deadlineAt: config.deadlineAt, queued: config.queued(), details };
    const [head, ...body] = questionLines(config.elicitation, state);
    const menu = ITEMS.map((item, i) => {
      const label = item.choice === "details" && details ? "hide details" : item.label;
      return `${i === cursor ? "❯" : " "} [${item.key}] ${label}`;
    });
    const content = [`? ${head}`, ...body, ...menu].join("\n");
    return [content, config.error ? `✖ ${config.error}` : ""];
  });
}
