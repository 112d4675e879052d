// Study (not a default bench section): would a resident shell that forks each attempt beat the
// per-attempt `/bin/sh` wrapper? Run: node bench/fork-server.mjs [count] [concurrency] [rounds]
//
// Three sides, interleaved (bench/measure.mjs: one warm-up round, then >= 5 rounds, the order
// reversed every other round), each a fresh Node process running `count` `/bin/true` with at
// most `concurrency` at once:
//   - raw:         child_process.spawn of /bin/true (cluster.mjs spawnBaseline, the floor);
//   - wrapper:     the wrapper floor (wrapper-floor.mjs): cgroups + spools + the runtime's
//                  wrapper script, one `/bin/sh` exec per attempt, as the process runtime does;
//   - fork-server: ONE resident `/bin/sh` fed a line per attempt; it forks a waiter subshell,
//                  which forks the task's subshell (joins the same cgroups by writing 0 to their
//                  `cgroup.procs`, sets the environment, `exec`s the task with the spools as
//                  stdout/stderr), waits for it and writes the status file. No exec of a shell
//                  per attempt; the exits are seen through the status files (fs.watch).
// What the fork-server side does NOT give, and why it is a study and not the runtime: the task
// is not in a session and process group of its own (a shell cannot setsid without exec'ing a
// program), a non-interactive shell starts background lists with SIGINT and SIGQUIT ignored
// (POSIX), so the task would inherit them ignored, the spools are opened by the shell (no
// O_NOFOLLOW) and the task's pid is not reported back. A Perl fork server that keeps all of it
// was built on branch `fork-server` and gave the cluster no faster rate (its controller is the
// bound). Numbers: docs/benchmarks.md.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawnBaseline } from './cluster.mjs';
import { interleave, loadAverage, ratioOf, secondsOfLoop } from './measure.mjs';
import { wrapperFloor } from './wrapper-floor.mjs';

const LOOP =
  `
const { spawn } = require('node:child_process');
const { mkdir, rmdir, readFile, unlink } = require('node:fs/promises');
const { watch } = require('node:fs');
const path = require('node:path');
const [count, concurrency] = process.argv.slice(1, 3).map(Number);
const dir = process.argv[3];
const parents = JSON.parse(process.argv[4]);
const q = (s) => "'" + s.replace(/'/g, "'\\\\''") + "'";
const shell = spawn('/bin/sh', ['-c', 'while read -r line; do eval "$line"; done'], { env: {}, stdio: ['pipe', ` +
  `'ignore', 'inherit'] });
const waiting = new Map();
watch(dir, (_, file) => {
  const done = file && waiting.get(file);
  if (!done) return;
  readFile(path.join(dir, file), 'utf8').then((text) => { if (text.endsWith('\\n') && waiting.delete(file)) ` +
  `done(text); }, () => {});
});
let next = 0;
const one = async (i) => {
  const groups = parents.map((p) => path.join(p, 't' + i));
  await Promise.all(groups.map((g) => mkdir(g)));
  const at = (ext) => path.join(dir, i + '.' + ext);
  const joins = groups.map((g) => 'echo 0 >' + q(path.join(g, 'cgroup.procs')) + '; ').join('');
  const ended = new Promise((resolve) => waiting.set(i + '.exit', resolve));
  shell.stdin.write('( (' + joins + 'export PATH=' + q('/usr/bin:/bin') + '; exec /bin/true) <&- >>' + q(at('out')) ` +
  `+ ' 2>>' + q(at('err')) + '; echo "exit $?" >' + q(at('exit')) + ' ) &\\n');
  if ((await ended) !== 'exit 0\\n') throw new Error('bad status file');
  // The waiter may still be alive a moment after its write; it is outside the cgroups.
  await Promise.all([...groups.map((g) => rmdir(g)), unlink(at('out')), unlink(at('err')), unlink(at('exit'))]);
};
const start = performance.now();
Promise.all(Array.from({ length: concurrency }, async () => {
  while (next < count) await one(next++);
})).then(() => { process.stdout.write(String((performance.now() - start) / 1000)); shell.stdin.end(); ` +
  `process.exit(0); });
`;

/** The fork-server side for `concurrency`, in the cgroup parents of `floor` (wrapperFloor). */
function forkServer(concurrency, parents) {
  const dir = mkdtempSync(path.join(tmpdir(), 'iris-bench-fork-'));
  const run = (count) => secondsOfLoop(LOOP, [count, concurrency, dir, JSON.stringify(parents)], 'fork server');
  return { run, close: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function runForkServerStudy({ count = 1000, concurrency = 16, rounds = 5 } = {}) {
  const load = { start: loadAverage(), end: null };
  const floor = await wrapperFloor(concurrency);
  const server = forkServer(concurrency, floor.parents);
  try {
    const r = await interleave(
      {
        raw: () => spawnBaseline(count, concurrency).then((x) => x.seconds * 1000),
        wrapper: () => floor.run(count).then((s) => s * 1000),
        forkServer: () => server.run(count).then((s) => s * 1000),
      },
      { rounds, warmup: 1 },
    );
    load.end = loadAverage();
    const rate = (name) => ({
      min: count / (r[name].max / 1000),
      median: count / (r[name].median / 1000),
      max: count / (r[name].min / 1000),
    });
    return {
      count,
      concurrency,
      rounds: r.rounds,
      cgroups: floor.cgroups,
      load,
      tasksPerSecond: { raw: rate('raw'), wrapper: rate('wrapper'), forkServer: rate('forkServer') },
      // rate ratios to raw = raw time / side time, median of the per-round ratios
      ratioToRaw: { wrapper: ratioOf(r, 'raw', 'wrapper').median, forkServer: ratioOf(r, 'raw', 'forkServer').median },
    };
  } finally {
    server.close();
    floor.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [count, concurrency, rounds] = process.argv.slice(2).map(Number);
  const result = await runForkServerStudy({
    count: count || 1000,
    concurrency: concurrency || 16,
    rounds: rounds || 5,
  });
  console.log(JSON.stringify(result, null, 2));
}
