// The wrapper floor: what one attempt's guarantees cost the kernel, with no controller at all.
//
// A fresh Node process (like the raw floor in cluster.mjs) runs `count` attempts of /bin/true,
// at most `concurrency` at once, each doing exactly the process work a process attempt of the
// cluster does on this machine:
//   - create the attempt's cgroups, in the hierarchies the runtime itself picks here
//     (detectCgroups + detectUsage from dist/, probed once in the benchmark process);
//   - open the stdout/stderr spool files and spawn the attempt wrapper (`/bin/sh -c
//     WRAPPER_SCRIPT`, the runtime's own script and arguments), which joins those cgroups, runs
//     the task as its child and writes the status file;
//   - on exit: read the status file, remove the cgroups and the files.
// What it leaves out is everything the controller adds: admission, the store, passes, the spool
// pump into the log, events, usage counters, the spawner's IPC. So `cluster rate / wrapper floor
// rate` says how close the controller gets to its own guarantees, beside the raw floor's ratio.
import { mkdtempSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { detectCgroups } from '../dist/runtime/process/cgroup.js';
import { detectUsage } from '../dist/runtime/process/usage.js';
import { WRAPPER_SCRIPT } from '../dist/runtime/process/wrapper.js';
import { secondsOfLoop } from './measure.mjs';

const LOOP =
  `
const { spawn } = require('node:child_process');
const { mkdir, rmdir, open, readFile, unlink } = require('node:fs/promises');
const path = require('node:path');
const [count, concurrency] = process.argv.slice(1, 3).map(Number);
const [dir, script] = process.argv.slice(3, 5);
const parents = JSON.parse(process.argv[5]);
let next = 0;
const one = async (i) => {
  const groups = parents.map((p) => path.join(p, 't' + i));
  await Promise.all(groups.map((g) => mkdir(g)));
  const at = (ext) => path.join(dir, i + '.' + ext);
  const [out, err] = await Promise.all([open(at('out'), 'a'), open(at('err'), 'a')]);
  const procs = groups.map((g) => path.join(g, 'cgroup.procs'));
  const args = ['-c', script, 'iris-task', at('exit'), '-', '-', String(procs.length), ...procs, '/bin/true'];
  const child = spawn('/bin/sh', args, { env: { PATH: '/usr/bin:/bin' }, detached: true, stdio: ['ignore', out.fd, ` +
  `err.fd] });
  const exited = new Promise((resolve, reject) => { child.on('error', reject); child.on('exit', resolve); });
  await Promise.all([out.close(), err.close()]);
  await exited;
  if ((await readFile(at('exit'), 'utf8')) !== 'exit 0\\n') throw new Error('bad status file');
  await Promise.all([...groups.map((g) => rmdir(g)), unlink(at('out')), unlink(at('err')), unlink(at('exit'))]);
};
const start = performance.now();
Promise.all(Array.from({ length: concurrency }, async () => {
  while (next < count) await one(next++);
})).then(() => process.stdout.write(String((performance.now() - start) / 1000)));
`;

/**
 * The cgroup directories an attempt of this machine's process runtime joins, as the parents to
 * create attempt cgroups under (`<hierarchy>/iris/<id>`), found with the runtime's own detection.
 * Empty when the runtime would use no cgroups here (the wrapper then joins none, like an attempt).
 */
async function attemptParents(id) {
  const killer = await detectCgroups();
  if (!killer) return [];
  const meter = await detectUsage(killer);
  const probe = killer.dirFor(id, 'probe');
  await killer.create(probe);
  const joined = killer.procsFile(probe);
  const procs = [joined, ...(await meter.create(id, 'probe', joined))];
  const parents = procs.map((file) => path.dirname(path.dirname(file)));
  for (const file of procs) rmdirSync(path.dirname(file));
  return parents;
}

/** Removes the `<hierarchy>/iris/<id>` directories after the rounds (cgroups go with rmdir only). */
function removeParents(parents) {
  for (const dir of new Set(parents)) {
    try {
      rmdirSync(dir);
    } catch {
      // already gone
    }
  }
}

/**
 * A wrapper floor for `concurrency`: `run(count)` times one loop of `count` attempts in a fresh
 * Node process (seconds, the loop's own time); `close()` removes its cgroups and files.
 */
export async function wrapperFloor(concurrency) {
  const id = `bench-floor-${process.pid}`;
  const parents = await attemptParents(id);
  const dir = mkdtempSync(path.join(tmpdir(), 'iris-bench-floor-'));
  const run = (count) =>
    secondsOfLoop(LOOP, [count, concurrency, dir, WRAPPER_SCRIPT, JSON.stringify(parents)], 'wrapper floor');
  const close = () => {
    removeParents(parents);
    rmSync(dir, { recursive: true, force: true });
  };
  return { cgroups: parents.length, parents, run, close };
}
