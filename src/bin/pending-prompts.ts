/**
 * @module bin/pending-prompts
 * Which permission prompts of an `agentkit approve` run are still waiting for
 * the person, so that an interrupted run can say which it withdrew (and exit
 * non-zero) instead of counting them as decided.
 */
import type { Asker, Decision, Elicitation } from "../contracts/elicitation.js";

/** The longest tool name shown in the withdrawal line; longer ones are cut in the middle. */
const MAX_NAME_CHARS = 80;

/** A tool name as one safe terminal word: control, C1 and bidi characters escaped, bounded. */
function shownName(request: Elicitation): string {
  const raw = request.toolCall?.name ?? "(no tool)";
  const safe = raw.replace(
    /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return safe.length > MAX_NAME_CHARS ? `${safe.slice(0, 50)}…${safe.slice(-20)}` : safe;
}

/**
 * Wraps an Asker and keeps the questions it has not answered yet.
 * `snapshot()` freezes the list at the moment of an interruption (before the
 * asker itself settles them as interrupted).
 */
export class PendingPrompts {
  private readonly open = new Set<Elicitation>();
  private frozen?: readonly string[];
  /** Called when the person interrupts a prompt (set by whoever runs the child: it stops the child, as Ctrl-C would). */
  onInterrupt?: () => void;

  /**
   * @param terminal the Asker is a `TerminalAsker`: its `reject` with note
   *   `"interrupted"` is Ctrl-C on a prompt (the terminal is in raw mode then,
   *   so no SIGINT reaches this process) and counts as an interruption.
   */
  constructor(private readonly terminal: boolean) {}

  /** The Asker to hand to the approval server: `asker`, with its open questions tracked. */
  wrap(asker: Asker): Asker {
    return {
      ask: async (request: Elicitation, ...rest: unknown[]): Promise<Decision> => {
        this.open.add(request);
        try {
          const decision = await (asker.ask as (r: Elicitation, ...a: unknown[]) => Promise<Decision>)(request, ...rest);
          if (this.terminal && decision?.kind === "reject" && decision.note === "interrupted") {
            this.interrupted();
            this.onInterrupt?.();
          }
          return decision;
        } finally {
          this.open.delete(request);
        }
      },
    };
  }

  /** Note an interruption: the prompts open now are the ones it withdraws. Only the first call counts. */
  interrupted(): void {
    this.frozen ??= [...this.open].map(shownName);
  }

  /** The tool names of the prompts withdrawn by the interruption (empty when there was none, or nothing was open). */
  get withdrawn(): readonly string[] {
    return this.frozen ?? [];
  }
}
