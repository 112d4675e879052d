// Quiet tasks (issue 36): what a task that prints nothing leaves on disk, on a real local cluster
// (the built CLI, dist/), against a same-run baseline of tasks that each print one line.
//
// One fresh cluster (16 CPUs of workers); rounds interleaved through bench/measure.mjs (one warm-up
// round, then >= 5 rounds, A B / B A): (quiet) BATCH one-task jobs of `true`; (one line) BATCH
// one-task jobs of `echo line`; each submitted by 20 concurrent socket clients, the round timed to
// its last end. After each side the bytes on disk (allocated blocks) and the entries of the state
// directory's task trees (logs/ and spool/) are counted: their growth over the side, per task, is
// the side's figure. At the end the cluster is stopped and state.db is VACUUMed: the pages of its
// tables and indexes that grew past their first page, over every task run (quiet and one-line rows
// are alike), give the bytes of state.db per finished task (the whole file's beside it), nearly all
// of them archived (keep-finished 100, see CONFIG).
// Verdicts: <= 1 KiB of files per quiet task, <= 400 B of state.db per finished task.
//
// BENCH_QUIET_TASKS (default 2,000 per side: 20,000 takes ~10 min per side on 2 shared cores) sets
// the quiet tasks in all (and as many one-line tasks), spread over the rounds.
// Build first: npm run build
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { pathToFileURL } from 'node:url';
import { SocketClient } from '../dist/client/socket-client.js';
import { awaitJobs, iris, startBenchCluster } from './cluster.mjs';
import { interleave, loadAverage, MIN_ROUNDS } from './measure.mjs';

// keep-finished 100: all but the newest 100 finished jobs are archived, as 99% are once 100,000
// have run with the default 1,000 (the state.db figure is that steady state, not the first 1,000's).
const CONFIG = 'stop-grace: 1s\nkeep-finished: 100\nworkers:\n  - {name: bench, cpu: 16, memory: 64GiB}\n';

/** Bytes allocated (blocks) and entries under `dir` (0 when it is not there). */
export function diskUse(dir) {
  const out = { bytes: 0, entries: 0 };
  const walk = (at) => {
    let names;
    try {
      names = readdirSync(at);
    } catch {
      return;
    }
    for (const name of names) {
      const full = path.join(at, name);
      let st;
      try {
        st = lstatSync(full);
      } catch {
        continue;
      }
      out.entries++;
      out.bytes += st.blocks * 512;
      if (st.isDirectory()) walk(full);
    }
  };
  walk(dir);
  return out;
}

/** What the tasks leave: logs/ and spool/ of the state directory. */
function taskTrees(home) {
  const a = diskUse(path.join(home, 'logs'));
  const b = diskUse(path.join(home, 'spool'));
  return { bytes: a.bytes + b.bytes, entries: a.entries + b.entries };
}

/** `count` one-task jobs of `command` from 20 clients; resolves once all ended. */
async function batch(socketPath, client, prefix, count, command) {
  const names = Array.from({ length: count }, (_, i) => `/${prefix}-${i}`);
  const clients = Array.from({ length: 20 }, () => new SocketClient({ socketPath, env: {} }));
  await Promise.all(
    clients.map(async (c, k) => {
      for (let i = k; i < count; i += clients.length)
        await c.submit({ name: names[i], command, cpu: 1, memory: '16M' });
    }),
  );
  await awaitJobs(client, names);
}

/** Pages of a stopped cluster's state.db after VACUUM, in bytes. */
function vacuumed(file) {
  const db = new DatabaseSync(file);
  try {
    db.exec('VACUUM');
    const { page_count } = db.prepare('PRAGMA page_count').get();
    const { page_size } = db.prepare('PRAGMA page_size').get();
    // The tables and indexes that grew past their first page: what the tasks cost (the empty schema's
    // one page per object, ~80 KB, is left out, so that a small run's figure is not inflated by it).
    const tables = db
      .prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name HAVING bytes > ? ORDER BY bytes DESC')
      .all(page_size)
      .map((r) => ({ name: r.name, bytes: r.bytes }));
    const grown = tables.reduce((a, t) => a + t.bytes, 0);
    return { bytes: page_count * page_size, grown, tables };
  } finally {
    db.close();
  }
}

export async function runQuietBench({ tasks = Number(process.env.BENCH_QUIET_TASKS ?? 2000), log = () => {} } = {}) {
  const rounds = MIN_ROUNDS;
  const per = Math.max(1, Math.ceil(tasks / rounds));
  const warm = Math.max(1, Math.ceil(per / 4));
  const load = { start: loadAverage() };
  const c = startBenchCluster('quiet', CONFIG);
  let stopped = false;
  try {
    const grown = { quiet: [], loud: [] };
    let round = 0;
    let ran = 0;
    const side = (name, command) => async () => {
      const count = round < 2 ? warm : per; // the first round of each side is the warm-up
      const before = taskTrees(c.home);
      const t0 = performance.now();
      await batch(c.client.socketPath, c.client, `${name}-${round}`, count, command);
      const ms = performance.now() - t0;
      const after = taskTrees(c.home);
      ran += count;
      if (round++ >= 2)
        grown[name].push({ count, bytes: after.bytes - before.bytes, entries: after.entries - before.entries, ms });
      log(`quiet bench: ${name} x ${count} in ${(ms / 1000).toFixed(1)} s`);
      return ms;
    };
    const result = await interleave(
      { quiet: side('quiet', ['true']), loud: side('loud', ['echo', 'line']) },
      {
        rounds,
      },
    );
    const perTask = (list, key) => list.reduce((a, x) => a + x[key], 0) / list.reduce((a, x) => a + x.count, 0);
    const files = {
      quiet: { bytesPerTask: perTask(grown.quiet, 'bytes'), entriesPerTask: perTask(grown.quiet, 'entries') },
      loud: { bytesPerTask: perTask(grown.loud, 'bytes'), entriesPerTask: perTask(grown.loud, 'entries') },
    };
    const rate = (list) => list.map((x) => x.count / (x.ms / 1000)).sort((a, b) => a - b)[Math.floor(list.length / 2)];
    iris(['cluster', 'stop'], c.ctx);
    stopped = true;
    const db = vacuumed(path.join(c.home, 'state.db'));
    return {
      tasksPerSide: ran / 2,
      rounds,
      perRound: per,
      files,
      stateDb: { bytesPerTask: db.grown / ran, fileBytesPerTask: db.bytes / ran, tasks: ran, ...db },
      throughput: { quietTasksPerSec: rate(grown.quiet), loudTasksPerSec: rate(grown.loud) },
      times: { quiet: result.quiet, loud: result.loud, ratio: result.ratio.loud },
      targets: { filesBytes: 1024, stateDbBytes: 400 },
      loadavg: { ...load, end: loadAverage() },
    };
  } finally {
    if (!stopped) iris(['cluster', 'stop'], c.ctx);
    c.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await runQuietBench({ log: (m) => console.error(m) });
  console.log(JSON.stringify(result, null, 2));
}
