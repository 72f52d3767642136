/**
 * @module askers/approval-prompt
 * The menu a `TerminalAsker` shows for one question, built on
 * `@inquirer/core`'s `createPrompt`: the question (see question-view), a
 * countdown and the queued count re-rendered twice a second, and the answers
 * (approve / reject / modify / details for a tool call; send / decline / edit
 * for a form; accept / decline for a link), picked by arrow keys and Enter or
 * by their letter. The whole prompt is fitted to the terminal (screen-fit):
 * the header and the keys stay on screen, the body scrolls (PgUp/PgDn, j/k).
 */
import type * as CoreModule from "@inquirer/core";
import type { Elicitation } from "../contracts/elicitation.js";
import { visible } from "../util/visible-text.js";
import type { FormValues } from "../agents/form-fields.js";
import { questionKind, questionLines, type QuestionKind } from "./question-view.js";
import { fitScreen } from "./screen-fit.js";

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
  /** A form's values as currently shown (default: the schema's defaults). */
  readonly values?: FormValues;
  /** Read at every render: the terminal's size (default 80x24). */
  readonly size?: () => { readonly columns: number; readonly rows: number };
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

type Item = { readonly key: string; readonly label: string; readonly choice: MenuChoice | "details" };

const DETAILS: Item = { key: "d", label: "show details (every line whole)", choice: "details" };

/** The answers offered for each kind of question. */
const MENUS: Readonly<Record<QuestionKind, readonly Item[]>> = {
  tool: [
    { key: "a", label: "approve", choice: "approve" },
    { key: "r", label: "reject (with an optional note)", choice: "reject" },
    { key: "m", label: "modify the arguments", choice: "modify" },
    DETAILS,
  ],
  form: [
    { key: "a", label: "send the values shown", choice: "approve" },
    { key: "r", label: "decline (send nothing)", choice: "reject" },
    { key: "m", label: "edit the values", choice: "modify" },
    DETAILS,
  ],
  link: [
    { key: "a", label: "accept (you will open the link shown)", choice: "approve" },
    { key: "r", label: "decline", choice: "reject" },
    DETAILS,
  ],
  question: [
    { key: "a", label: "approve", choice: "approve" },
    { key: "r", label: "reject (with an optional note)", choice: "reject" },
    DETAILS,
  ],
};

/**
 * The single key of each answer to a tool call (`a` approve, `r` reject,
 * `m` modify, `d` details), as this menu reads them: the inbox page's
 * shortcuts are these.
 */
export const ANSWER_KEYS: Readonly<Record<MenuChoice | "details", string>> = Object.freeze(
  Object.fromEntries(MENUS.tool.map((item) => [item.choice, item.key])) as Record<MenuChoice | "details", string>,
);

/** How often the countdown and the queued count are redrawn. */
const TICK_MS = 500;

/** The header (what, where from, time left) is the first two lines of a question's view. */
const HEADER_LINES = 2;

/** Builds the menu prompt from the loaded `@inquirer/core`. */
export function approvalPrompt(core: typeof CoreModule): ApprovalPrompt {
  const { createPrompt, useState, useEffect, useRef, useKeypress, isEnterKey, isUpKey, isDownKey } = core;
  return createPrompt<MenuChoice, ApprovalPromptConfig>((config, done) => {
    const items = MENUS[questionKind(config.elicitation)];
    const [cursor, setCursor] = useState(0);
    const [details, setDetails] = useState(false);
    const [scroll, setScroll] = useState(0);
    const maxScroll = useRef(0);
    const [, setTick] = useState(0);
    useEffect(() => {
      const timer = setInterval(() => setTick((n) => n + 1), TICK_MS);
      return () => clearInterval(timer);
    }, []);
    const pick = (index: number): void => {
      const item = items[index]!;
      if (item.choice === "details") {
        setDetails(!details);
        setScroll(0);
      } else done(item.choice);
    };
    const size = config.size?.() ?? { columns: 80, rows: 24 };
    const page = Math.max(1, size.rows - 10);
    useKeypress((key) => {
      if (isUpKey(key)) setCursor((cursor + items.length - 1) % items.length);
      else if (isDownKey(key)) setCursor((cursor + 1) % items.length);
      else if (isEnterKey(key)) pick(cursor);
      else if (key.name === "pagedown" || key.name === "j") setScroll(Math.min(maxScroll.current, scroll + (key.name === "j" ? 1 : page)));
      else if (key.name === "pageup" || key.name === "k")
        setScroll(Math.max(0, Math.min(maxScroll.current, scroll) - (key.name === "k" ? 1 : page)));
      else {
        const index = items.findIndex((i) => i.key === key.name && !key.ctrl);
        if (index >= 0) pick(index);
      }
    });
    const state = { now: Date.now(), deadlineAt: config.deadlineAt, queued: config.queued(), details, values: config.values };
    const lines = questionLines(config.elicitation, state);
    const menu = items.map((item, i) => {
      const label = item.choice === "details" && details ? "hide details" : item.label;
      return `${i === cursor ? "❯" : " "} [${item.key}] ${label}`;
    });
    const footer = config.error ? [...menu, `✖ ${visible(config.error)}`] : menu;
    const [head, ...rest] = lines;
    const parts = { header: [`? ${head}`, ...rest.slice(0, HEADER_LINES - 1)], body: rest.slice(HEADER_LINES - 1), footer };
    const fitted = fitScreen(parts, { ...size, whole: details, scroll });
    maxScroll.current = fitted.maxScroll;
    return fitted.lines.join("\n");
  });
}
