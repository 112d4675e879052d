/**
 * SQLite schema of the cluster store and its migrations.
 *
 * Invariants:
 * - `PRAGMA user_version` is the number of migrations applied; `migrate` applies the missing
 *   ones in order inside one transaction, so a database is never half-migrated.
 * - The database runs in WAL mode with synchronous=FULL: once COMMIT returns, the change
 *   survives a crash or power loss (an acknowledged submit is durable). The one exception is
 *   the store's group commit (store-core.ts, `lazy` transactions): synchronous=NORMAL for that
 *   commit only, which survives a crash of the process but not of the OS until synced.
 * - Rows mirror the in-memory objects one to one (see persist.ts); `events` is an append-only
 *   history of state changes (each row tagged with its job's run).
 * - `runs` is the archive of job runs that a new submission of their name replaced: indexed
 *   columns for `iris history` filters plus one JSON record of the run (archive.ts).
 * - `results` holds task results by run id (results.ts): they stay with an archived run and go
 *   with it when it is pruned.
 * - `cache_hints` mirrors ClusterModel.cacheHints one row per (worker, key) (cache-hints.ts).
 * - `attempts_by_finished` lets the timeline (timeline.ts) read a window's attempts without a scan.
 * - Specs, placements and log paths are stored compactly (stored-row.ts, migration 13).
 */
import type { DatabaseSync } from 'node:sqlite';
import { IrisError } from '../../model/errors.js';

export const MIGRATIONS: readonly string[] = [
  // 1: initial schema
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE jobs (
    name TEXT PRIMARY KEY,
    parent TEXT,
    depth INTEGER NOT NULL,
    spec TEXT NOT NULL,
    submitted_at INTEGER NOT NULL,
    root_submitted_at INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    state TEXT NOT NULL,
    reason TEXT,
    started_at INTEGER,
    finished_at INTEGER,
    failed_tasks INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE tasks (
    id TEXT PRIMARY KEY,
    job TEXT NOT NULL,
    idx INTEGER NOT NULL,
    state TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    submitted_at INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    failures INTEGER NOT NULL,
    preemptions INTEGER NOT NULL,
    worker_id TEXT,
    exit_code INTEGER,
    reason TEXT,
    started_at INTEGER,
    finished_at INTEGER
  ) WITHOUT ROWID;
  CREATE TABLE attempts (
    task TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    worker_id TEXT NOT NULL,
    state TEXT NOT NULL,
    pid INTEGER,
    exit_code INTEGER,
    reason TEXT,
    started_at INTEGER NOT NULL,
    finished_at INTEGER,
    log_path TEXT NOT NULL,
    PRIMARY KEY (task, attempt)
  ) WITHOUT ROWID;
  CREATE TABLE workers (id TEXT PRIMARY KEY, spec TEXT NOT NULL, state TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE endpoints (
    task TEXT NOT NULL,
    name TEXT NOT NULL,
    address TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    job TEXT NOT NULL,
    registered_at INTEGER NOT NULL,
    PRIMARY KEY (task, name)
  ) WITHOUT ROWID;
  CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    time INTEGER NOT NULL,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    state TEXT NOT NULL,
    reason TEXT
  );
  CREATE INDEX events_by_name ON events (name, id);
  `,
  // 2: the device indices an attempt holds live in the store (comma-separated; '' for none)
  `
  ALTER TABLE attempts ADD COLUMN devices TEXT NOT NULL DEFAULT '';
  `,
  // 3: an attempt whose output passed the log limit records the limit its log was cut at
  `
  ALTER TABLE attempts ADD COLUMN log_cut_bytes INTEGER;
  `,
  // 4: measured usage of an attempt (CPU seconds, peak memory bytes); NULL when not measured
  `
  ALTER TABLE attempts ADD COLUMN cpu_seconds REAL;
  ALTER TABLE attempts ADD COLUMN peak_memory_bytes INTEGER;
  `,
  // 5: run ids and the run archive (archive.ts). Jobs already stored get run ids in submission
  // order; `meta.run` is the last run id handed out. Events carry the run of their job (NULL
  // for workers and for events written before this migration).
  `
  ALTER TABLE jobs ADD COLUMN run INTEGER NOT NULL DEFAULT 0;
  UPDATE jobs SET run = numbered.n FROM (SELECT name, ROW_NUMBER() OVER (ORDER BY seq, name) AS n FROM jobs) AS numbered
    WHERE jobs.name = numbered.name;
  INSERT OR REPLACE INTO meta (key, value) SELECT 'run', CAST(COUNT(*) AS TEXT) FROM jobs;
  ALTER TABLE events ADD COLUMN run INTEGER;
  CREATE INDEX events_by_run ON events (run);
  CREATE TABLE runs (
    run INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    user TEXT NOT NULL,
    state TEXT NOT NULL,
    submitted_at INTEGER NOT NULL,
    started_at INTEGER,
    finished_at INTEGER,
    record TEXT NOT NULL
  );
  CREATE INDEX runs_by_name ON runs (name, run);
  CREATE INDEX runs_by_user ON runs (user, run);
  CREATE INDEX runs_by_state ON runs (state, run);
  CREATE INDEX runs_by_finished ON runs (finished_at);
  `,
  // 6: a task waiting out its retry backoff is eligible again at this time (epoch ms); NULL: at once
  `
  ALTER TABLE tasks ADD COLUMN eligible_at INTEGER;
  `,
  // 7: task results (results.ts), per job run, task index and key; the attempt that set each one
  `
  CREATE TABLE results (
    run INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    key TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    value TEXT NOT NULL,
    set_at INTEGER NOT NULL,
    PRIMARY KEY (run, idx, key)
  ) WITHOUT ROWID;
  `,
  // 8: why another job ended this one (model JobCause as JSON: a dependency failure); NULL: none
  `
  ALTER TABLE jobs ADD COLUMN cause TEXT;
  `,
  // 9: how adaptive placement chose an attempt's worker (model PlacementDecision as JSON); NULL: not scored
  `
  ALTER TABLE attempts ADD COLUMN placement TEXT;
  `,
  // 10: context-reuse cache
  // hints (cache-hints.ts): worker `worker` held `key` (a task that uses it ran there) until
  // `expires_at` (epoch ms)
  `
  CREATE TABLE cache_hints (
    worker TEXT NOT NULL,
    key TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (worker, key)
  ) WITHOUT ROWID;
  `,
  // 11: the merged batch an attempt ran in (model MergedBatch as JSON: lead and tasks); NULL: not merged
  `
  ALTER TABLE attempts ADD COLUMN merged TEXT;
  `,
  // 12: the timeline (timeline.ts) finds the attempts of a window by when they ended (NULL: still live)
  `
  CREATE INDEX attempts_by_finished ON attempts (finished_at);
  `,
  // 13: compact rows (stored-row.ts): a job's spec without its name and its default fields, a
  // placement without a null runner-up and a false reuseHit. Rows that are not valid JSON are left
  // as they are (load-check.ts reports them). New rows are written so; old rows read the same.
  `
  UPDATE jobs SET spec = json_remove(spec, '$.name')
    WHERE json_valid(spec) AND json_type(spec) = 'object';
  UPDATE jobs SET spec = json_remove(spec, '$.env')
    WHERE json_valid(spec) AND json_extract(spec, '$.env') = '{}';
  UPDATE jobs SET spec = json_remove(spec, '$.cwd')
    WHERE json_valid(spec) AND json_type(spec, '$.cwd') = 'null';
  UPDATE jobs SET spec = json_remove(spec, '$.image')
    WHERE json_valid(spec) AND json_type(spec, '$.image') = 'null';
  UPDATE jobs SET spec = json_remove(spec, '$.replicas')
    WHERE json_valid(spec) AND json_extract(spec, '$.replicas') = 1;
  UPDATE jobs SET spec = json_remove(spec, '$.constraints')
    WHERE json_valid(spec) AND json_extract(spec, '$.constraints') = '[]';
  UPDATE jobs SET spec = json_remove(spec, '$.coschedule')
    WHERE json_valid(spec) AND json_type(spec, '$.coschedule') = 'null';
  UPDATE jobs SET spec = json_remove(spec, '$.maxRetries')
    WHERE json_valid(spec) AND json_extract(spec, '$.maxRetries') = 0;
  UPDATE jobs SET spec = json_remove(spec, '$.maxTaskFailures')
    WHERE json_valid(spec) AND json_extract(spec, '$.maxTaskFailures') = 0;
  UPDATE jobs SET spec = json_remove(spec, '$.schedulingTimeoutMs')
    WHERE json_valid(spec) AND json_type(spec, '$.schedulingTimeoutMs') = 'null';
  UPDATE jobs SET spec = json_remove(spec, '$.resources.device')
    WHERE json_valid(spec) AND json_type(spec, '$.resources.device') = 'null';
  UPDATE attempts SET placement = json_remove(placement, '$.runnerUp')
    WHERE placement IS NOT NULL AND json_valid(placement) AND json_type(placement, '$.runnerUp') = 'null';
  UPDATE attempts SET placement = json_remove(placement, '$.reuseHit')
    WHERE placement IS NOT NULL AND json_valid(placement) AND json_type(placement, '$.reuseHit') = 'false';
  `,
  // 14: an archived run's per-task runtime (planner/prediction.ts runRuntime) as a column, for
  // predictions, now that new records are compressed (run-record.ts) and SQL cannot read them;
  // computed here from the JSON records written before.
  `
  ALTER TABLE runs ADD COLUMN runtime REAL;
  UPDATE runs SET runtime = (
    SELECT avg(json_extract(a.value, '$[#-1].finishedAt') - json_extract(a.value, '$[#-1].startedAt'))
    FROM json_each(runs.record, '$.attempts') a
    WHERE json_extract(a.value, '$[#-1].state') = 'SUCCEEDED' AND json_extract(a.value, '$[#-1].finishedAt') IS NOT NULL
  ) WHERE state = 'SUCCEEDED' AND json_valid(record);
  `,
  // 15: the state index leaves out runs that succeeded (most of them: a quiet task's archived run
  // costs ~20 B less); a listing of SUCCEEDED runs walks runs newest first instead, and one of
  // other states adds the index's condition so SQLite can use it (archive.ts \`list\`).
  `
  DROP INDEX runs_by_state;
  CREATE INDEX runs_by_state ON runs (state, run) WHERE state <> 'SUCCEEDED';
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Pragmas for durability and speed; call once per connection before anything else. */
export function configure(db: DatabaseSync, inMemory: boolean): void {
  if (!inMemory) db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = FULL');
  db.exec('PRAGMA foreign_keys = OFF');
  db.exec('PRAGMA busy_timeout = 5000');
}

function versionOf(db: DatabaseSync): number {
  const current = (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
  if (current > SCHEMA_VERSION) {
    throw new IrisError(
      'conflict',
      `cluster database has schema version ${current}, newer than this iris understands (${SCHEMA_VERSION})`,
      'upgrade iris',
    );
  }
  return current;
}

/** For reading without changing anything: the database must be at SCHEMA_VERSION already. */
export function checkVersion(db: DatabaseSync): void {
  const current = versionOf(db);
  if (current < SCHEMA_VERSION) {
    throw new IrisError(
      'unavailable',
      `the saved cluster state has schema version ${current}, older than this iris reads without upgrading it (` +
        `${SCHEMA_VERSION})`,
      'start the cluster once (`iris cluster start`) to upgrade it',
    );
  }
}

/** Bring the database to SCHEMA_VERSION. Refuses a database written by a newer iris. */
export function migrate(db: DatabaseSync): void {
  const current = versionOf(db);
  if (current === SCHEMA_VERSION) return;
  db.exec('BEGIN IMMEDIATE');
  try {
    for (let v = current; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]!);
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    db.exec('COMMIT');
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}
