/**
 * @module askers/inbox/postgres-runs
 * Durable agent runs (`contracts/run-record`) as rows of the inbox's schema
 * (version 7): the `runs` table (one row per run: its agent, status, state
 * format, input, the agent's fingerprint, the worker holding it, the
 * result) and `run_steps` (one row per step, keyed by run and number), their
 * grants and row-level policies, and the statements the PostgreSQL store
 * runs. As in every inbox table, `owner` is the database login that wrote
 * the row (`current_user`): a worker adds, reads and changes only its own
 * login's runs; the page's role reads every run. A step is written only
 * while the writing worker holds the run (one statement: the run's row is
 * touched and the step inserted only when `holder` matches), so a worker
 * that lost its run to another cannot write into it. A question a run asked
 * is found by its `question_id`, so the page's sweeper leaves the pending
 * questions of an unfinished run alone (a resume asks them again).
 */
import type { RunHead, RunStatus, RunStep, RunSummary } from "../../contracts/run-record.js";
import type { Statement } from "./postgres-records.js";

type Row = Record<string, unknown>;

/** The `runs` and `run_steps` tables and their indexes (idempotent). */
export function runsTableSql(s: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${s}.runs (
      run_id text PRIMARY KEY,
      agent text NOT NULL,
      status text NOT NULL CHECK (status IN ('running', 'waiting', 'finished', 'failed')),
      format integer NOT NULL,
      input text NOT NULL,
      fingerprint jsonb NOT NULL,
      holder text,
      result jsonb,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      owner text NOT NULL DEFAULT CURRENT_USER
    )`,
    `CREATE INDEX IF NOT EXISTS runs_updated ON ${s}.runs (updated_at)`,
    `CREATE TABLE IF NOT EXISTS ${s}.run_steps (
      run_id text NOT NULL REFERENCES ${s}.runs (run_id) ON DELETE CASCADE,
      seq integer NOT NULL CHECK (seq >= 1),
      kind text NOT NULL,
      data jsonb NOT NULL,
      at timestamptz NOT NULL,
      question_id text,
      owner text NOT NULL DEFAULT CURRENT_USER,
      PRIMARY KEY (run_id, seq)
    )`,
    `CREATE INDEX IF NOT EXISTS run_steps_question ON ${s}.run_steps (question_id) WHERE question_id IS NOT NULL`,
  ];
}

/** The runs' grants and row-level policies for the inbox's two roles (idempotent: a policy is dropped and made again). */
export function runsRolesSql(s: string, roles: { readonly worker: string; readonly page: string }): string[] {
  const { worker: w, page: p } = roles;
  const policies: Array<[string, string, string]> = [
    ["runs", "worker_reads_own", `FOR SELECT TO ${w} USING (owner = current_user)`],
    ["runs", "worker_creates", `FOR INSERT TO ${w} WITH CHECK (owner = current_user)`],
    ["runs", "worker_changes_own", `FOR UPDATE TO ${w} USING (owner = current_user) WITH CHECK (owner = current_user)`],
    ["runs", "page_reads_all", `FOR SELECT TO ${p} USING (true)`],
    ["run_steps", "worker_reads_own", `FOR SELECT TO ${w} USING (owner = current_user)`],
    ["run_steps", "worker_appends", `FOR INSERT TO ${w} WITH CHECK (owner = current_user)`],
    ["run_steps", "page_reads_all", `FOR SELECT TO ${p} USING (true)`],
    // a resumed run's worker takes over its pending question (it then hears its answer); the row stays pending
    [
      "questions",
      "worker_adopts_own",
      `FOR UPDATE TO ${w} USING (owner = current_user AND status = 'pending') WITH CHECK (owner = current_user AND status = 'pending')`,
    ],
  ];
  return [
    `GRANT SELECT, INSERT (run_id, agent, status, format, input, fingerprint, holder, result, created_at, ` +
      `updated_at), UPDATE (status, holder, result, updated_at) ON ${s}.runs TO ${w}`,
    `GRANT SELECT, INSERT (run_id, seq, kind, data, at, question_id) ON ${s}.run_steps TO ${w}`,
    `GRANT UPDATE (worker) ON ${s}.questions TO ${w}`,
    `ALTER TABLE ${s}.runs ENABLE ROW LEVEL SECURITY`,
    `ALTER TABLE ${s}.run_steps ENABLE ROW LEVEL SECURITY`,
    ...policies.flatMap(([t, name, rule]) => [`DROP POLICY IF EXISTS ${name} ON ${s}.${t}`, `CREATE POLICY ${name} ON ${s}.${t} ${rule}`]),
  ];
}

/** The sweeper's exception: a pending question asked by a run that is not finished (its resume asks it again). */
export const questionOfOpenRun = (s: string, question: string): string =>
  `EXISTS (SELECT 1 FROM ${s}.run_steps st JOIN ${s}.runs r ON r.run_id = st.run_id WHERE st.question_id = ` +
  `${question}.id AND r.status IN ('running', 'waiting'))`;

const iso = (v: unknown): string => new Date(v as string | Date).toISOString();

/** A `runs` row (read as JSON) as a `RunHead`. */
export function runHeadOf(r: Row): RunHead {
  return Object.freeze({
    runId: String(r.run_id),
    agent: String(r.agent),
    status: r.status as RunStatus,
    format: Number(r.format),
    input: r.input as string,
    fingerprint: r.fingerprint as Record<string, unknown>,
    holder: typeof r.holder === "string" ? r.holder : null,
    ...(r.result ? { result: r.result as Record<string, unknown> } : {}),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  });
}

/** A `run_steps` row as a `RunStep`. */
export function runStepOf(r: Row): RunStep {
  return Object.freeze({ seq: Number(r.seq), kind: r.kind as RunStep["kind"], data: r.data as Record<string, unknown>, at: iso(r.at) });
}

/** A `runs` row as a `RunSummary`. */
export function runSummaryOf(r: Row): RunSummary {
  return Object.freeze({ runId: String(r.run_id), status: r.status as RunStatus, agent: String(r.agent), updatedAt: iso(r.updated_at) });
}

/** Add run `head` (fails with a unique violation when its id is there). */
export function insertRunSql(s: string, head: RunHead): Statement {
  return {
    text:
      `INSERT INTO ${s}.runs (run_id, agent, status, format, input, fingerprint, holder, created_at, updated_at) ` +
      `VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
    values: [head.runId, head.agent, head.status, head.format, head.input, JSON.stringify(head.fingerprint), head.holder, head.createdAt],
  };
}

/** The run `runId` (as JSON). */
export const selectRun = (s: string, runId: string): Statement => ({
  text: `SELECT row_to_json(r) AS row FROM ${s}.runs r WHERE run_id = $1`,
  values: [runId],
});

/** The run `runId` (as JSON), the login that started it, and whether that is this login (`own`). */
export const selectRunOwner = (s: string, runId: string): Statement => ({
  text:
    `SELECT row_to_json(r) AS row, r.owner AS owner, r.owner = current_user AS own, current_user AS login FROM ` +
    `${s}.runs r WHERE run_id = $1`,
  values: [runId],
});

/** Why a login may not take run `runId`: another login started it (the row policies let a worker change only its own login's runs). */
export const notOwnRunMessage = (runId: string, owner: string, login: string): string =>
  `run '${runId}' was started by the database login '${owner}'; this store's login '${login}' may resume only the ` +
  `runs its own login started (the inbox's row policies). Resume it with a store on login '${owner}'`;

/** The steps of `runId`, in order. */
export const selectRunSteps = (s: string, runId: string): Statement => ({
  text: `SELECT row_to_json(t) AS row FROM ${s}.run_steps t WHERE run_id = $1 ORDER BY seq`,
  values: [runId],
});

/**
 * Take run `runId` for `holder` when nobody alive holds it: no holder, the
 * same one, or one whose worker lease lapsed (on an embedded store,
 * `anyDead`: every other holder is a process that is gone). Returns the
 * run's id and how many steps it has when taken.
 */
export function claimRunSql(s: string, runId: string, holder: string, anyDead: boolean): Statement {
  const lapsed = anyDead
    ? "true"
    : `NOT EXISTS (SELECT 1 FROM ${s}.workers w WHERE w.owner = r.owner AND w.worker = r.holder AND w.lease_until >= now())`;
  return {
    text: `UPDATE ${s}.runs r SET holder = $2, updated_at = now() WHERE run_id = $1 AND status IN ('running', 'waiting') AND (holder IS NULL OR holder = $2 OR ${lapsed})
      RETURNING run_id, (SELECT count(*)::int FROM ${s}.run_steps st WHERE st.run_id = r.run_id) AS steps`,
    values: [runId, holder],
  };
}

/**
 * Append `step` to `runId` while `holder` holds it (the run's status follows: `waiting` on a question, else `running`);
 * no row when it does not.
 */
export function appendRunStepSql(s: string, runId: string, holder: string, step: RunStep): Statement {
  const questionId = step.kind === "question" && typeof step.data.questionId === "string" ? step.data.questionId : null;
  return {
    text: `WITH held AS (UPDATE ${s}.runs SET status = $7, updated_at = now() WHERE run_id = $1 AND holder = $2 RETURNING run_id)
      INSERT INTO ${s}.run_steps (run_id, seq, kind, data, at, question_id) SELECT run_id, $3, $4, $5, $6, $8 FROM held RETURNING seq`,
    values: [
      runId,
      holder,
      step.seq,
      step.kind,
      JSON.stringify(step.data),
      step.at,
      step.kind === "question" ? "waiting" : "running",
      questionId,
    ],
  };
}

/**
 * Append consecutive `steps` to `runId` in one statement while `holder` holds it (the run's status follows the last
 * step); no rows when it does not.
 */
export function appendRunStepsSql(s: string, runId: string, holder: string, steps: readonly RunStep[]): Statement {
  const rows = steps.map((step) => ({
    seq: step.seq,
    kind: step.kind,
    data: step.data,
    at: step.at,
    question_id: step.kind === "question" && typeof step.data.questionId === "string" ? step.data.questionId : null,
  }));
  return {
    text: `WITH held AS (UPDATE ${s}.runs SET status = $3, updated_at = now() WHERE run_id = $1 AND holder = $2 RETURNING run_id)
      INSERT INTO ${s}.run_steps (run_id, seq, kind, data, at, question_id)
      SELECT held.run_id, st.seq, st.kind, st.data, st.at, st.question_id FROM held,
        jsonb_to_recordset($4::jsonb) AS st(seq integer, kind text, data jsonb, at timestamptz, question_id text) RETURNING seq`,
    values: [runId, holder, steps.at(-1)?.kind === "question" ? "waiting" : "running", JSON.stringify(rows)],
  };
}

/** Set the status (and result) of `runId` while `holder` holds it; a finished or failed run is let go with it. */
export const setRunStatusSql = (s: string, runId: string, holder: string, status: RunStatus, result: unknown): Statement => ({
  text:
    `UPDATE ${s}.runs SET status = $3, result = COALESCE($4::jsonb, result), updated_at = now(), holder = CASE WHEN ` +
    `$3 IN ('finished', 'failed') THEN NULL ELSE holder END WHERE run_id = $1 AND holder = $2 RETURNING run_id`,
  values: [runId, holder, status, result === undefined ? null : JSON.stringify(result)],
});

/** Let go of `runId` when `holder` holds it. */
export const releaseRunSql = (s: string, runId: string, holder: string): Statement => ({
  text: `UPDATE ${s}.runs SET holder = NULL WHERE run_id = $1 AND holder = $2`,
  values: [runId, holder],
});

/** The runs, newest change first (only `status`, when given). */
export const selectRuns = (s: string, status: RunStatus | undefined): Statement =>
  status === undefined
    ? {
        text:
          `SELECT row_to_json(r) AS row FROM (SELECT run_id, status, agent, updated_at FROM ${s}.runs ORDER BY ` +
          `updated_at DESC, run_id) r`,
        values: [],
      }
    : {
        text:
          `SELECT row_to_json(r) AS row FROM (SELECT run_id, status, agent, updated_at FROM ${s}.runs WHERE status = ` +
          `$1 ORDER BY updated_at DESC, run_id) r`,
        values: [status],
      };

/** Take over pending question `id` for worker `worker` (a resumed run's); the row as it stands after. */
export const adoptQuestionSql = (s: string, id: string, worker: string): Statement => ({
  text: `UPDATE ${s}.questions SET worker = $2 WHERE id = $1 AND status = 'pending' RETURNING id`,
  values: [id, worker],
});
