/**
 * The hostile suite, results (docs/security.md, "Result files are read safely" and "A result is
 * data, never code"): the built binary against a real local cluster, and the real Docker engine
 * for what a container does.
 *
 * - A result file that is a symlink (to a secret, to /dev/zero), a hard link, a file of another
 *   owner, a FIFO or 100 MB is ignored with a note that quotes nothing of it; six FIFOs at once
 *   do not stop the cluster from launching, logging and stopping; the 100 MB file does not grow
 *   the controller's memory; a valid small file still works.
 * - A result pasted into a later stage's shell command is never run as code: the dependent
 *   stage echoes it verbatim and the payload's commands never run (also when a container stage
 *   publishes it and a host stage reads it).
 * - Control characters in a result are shown escaped by `iris results` and `iris status`
 *   (`\x1b[2J`), and `--json` has none raw either.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobDetail, ResultsResponse } from '../../src/api/types.js';
import { BUSYBOX, dockerTestEnv } from '../helpers/docker.js';
import { startDockerCluster, stopDockerCluster } from '../e2e/docker-fixture.js';
import { E2ECluster, describeRun } from '../e2e/harness.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 16, memory: 16GiB}
`;

/** Any C0 control but newline, DEL or C1 control: what must never reach the terminal raw. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

const IN_CI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';

const results = (answer: ResultsResponse) => answer.results.map((r) => [r.key, r.value]);
const reasonOf = (job: JobDetail) => job.taskList[0]?.reason ?? '';

/** Peak resident memory of a process (VmHWM), in bytes. */
function peakRss(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kb === undefined) throw new Error(`no VmHWM for pid ${pid}`);
  return Number(kb) * 1024;
}

/** The payload of the injection tests: shell syntax that would create `marker(n)` files if run. */
function injection(dir: string): { payload: string; markers: string[] } {
  const markers = [1, 2, 3, 4].map((n) => path.join(dir, `pwned-${n}`));
  const payload = `0.9; touch ${markers[0]}; echo $(touch ${markers[1]}) \`touch ${markers[2]}\` | touch ${markers[3]}`;
  return { payload, markers };
}

describe('hostile results: files and values from a process task', () => {
  let c: E2ECluster;
  let secret: string;
  const SECRET = 'hunter2-b9e1c7';
  beforeAll(async () => {
    c = await E2ECluster.create({ config: CONFIG });
    secret = path.join(c.root, 'secret.json');
    writeFileSync(secret, JSON.stringify({ password: SECRET }));
    chmodSync(secret, 0o600);
  });
  afterAll(async () => {
    await c?.dispose();
  });

  /** Run `script` as a task named `name`; its job once ended. */
  async function task(name: string, script: string): Promise<JobDetail> {
    const r = await c.iris(['run', '--name', name, '--cpu', '0.1', '--', 'sh', '-c', script]);
    expect(r.code, describeRun(['run', name], r)).toBe(0);
    return c.job(`/${name}`);
  }

  it('a valid small result file still works', async () => {
    await task('valid', `printf '{"score": "0.93"}' > "$IRIS_RESULT_FILE"`);
    expect(results(await c.json<ResultsResponse>(['results', 'valid']))).toEqual([['score', '0.93']]);
  });

  it('a symlink to a secret, to /etc/shadow or to /dev/zero is ignored, quoting nothing of the target', async () => {
    for (const [name, target] of [
      ['ln-secret', secret],
      ['ln-shadow', '/etc/shadow'],
      ['ln-zero', '/dev/zero'],
    ] as const) {
      const job = await task(name, `ln -s ${target} "$IRIS_RESULT_FILE"`);
      expect(job.state).toBe('SUCCEEDED');
      expect(reasonOf(job)).toBe('result file ignored: it is a symbolic link (never followed)');
      expect(results(await c.json<ResultsResponse>(['results', name]))).toEqual([]);
    }
    const log = (await c.logs('/ln-shadow')).map((l) => l.text).join('\n');
    expect(log).toContain('iris: result file ignored: it is a symbolic link (never followed)');
    expect(log).not.toContain('root:');
  });

  it('a hard link to a root-only file is ignored', async () => {
    const hard = await task('hardlink', `ln ${secret} "$IRIS_RESULT_FILE"`);
    expect(reasonOf(hard)).toBe("result file ignored: it has 2 hard links (a file of the task's own has one)");
    expect(results(await c.json<ResultsResponse>(['results', 'hardlink']))).toEqual([]);
  });

  it('a file of another owner is ignored', async (ctx) => {
    const own = process.geteuid!();
    if (own !== 0) {
      // The task must chown the file, which needs root: CI runs as root, where this never skips.
      if (IN_CI) throw new Error('this test needs root (chown), as CI has');
      ctx.skip();
    }
    const other = await task(
      'other-owner',
      `printf '{"k": "v"}' > "$IRIS_RESULT_FILE" && chown 65534 "$IRIS_RESULT_FILE"`,
    );
    expect(reasonOf(other)).toBe(`result file ignored: it belongs to uid 65534, not to the task's user (uid ${own})`);
    expect(results(await c.json<ResultsResponse>(['results', 'other-owner']))).toEqual([]);
  });

  it("a 100 MB result file is ignored as too large, without growing the controller's memory", async () => {
    const pid = c.pid()!;
    const before = peakRss(pid);
    // Sparse: 100 MB long at once, without writing 100 MB.
    const job = await task('huge', 'truncate -s 100000000 "$IRIS_RESULT_FILE"');
    // Reading it would cost the controller at least its size in memory; refusing it costs nothing.
    expect(peakRss(pid) - before).toBeLessThan(48 * 1024 * 1024);
    expect(reasonOf(job)).toBe('result file ignored: it is 100000000 bytes, more than the limit of 1048576');
  });

  it("a result pasted into a later stage's shell command is echoed verbatim and never run", async () => {
    const { payload, markers } = injection(c.cwd);
    const publish = c.script(
      'publish.sh',
      `cat > "$IRIS_RESULT_FILE" <<'EOF'\n${JSON.stringify({ score: payload })}\nEOF`,
    );
    writeFileSync(
      path.join(c.cwd, 'inject.yaml'),
      [
        'name: inject',
        'stages:',
        '  untrusted:',
        '    cpu: 0.1',
        `    command: [sh, ${publish}]`,
        '  dependent:',
        '    cpu: 0.1',
        '    needs: [untrusted]',
        '    command: echo score=${stages.untrusted.result.score}; echo "quoted=${stages.untrusted.result.score}"',
        '',
      ].join('\n'),
    );
    const run = await c.iris(['run', '-f', 'inject.yaml']);
    expect(run.code, describeRun(['run', '-f', 'inject.yaml'], run)).toBe(0);
    const lines = (await c.logs('/inject/dependent')).map((l) => l.text);
    expect(lines).toEqual([`score=${payload}`, `quoted=${payload}`]);
    expect(markers.filter((m) => existsSync(m))).toEqual([]);
  });

  it('control characters in a result are escaped by iris results and iris status, and in --json', async () => {
    const value = '\u001b[2J\u001b]0;pwned\u0007\u009b31mred';
    writeFileSync(
      path.join(c.cwd, 'esc.yaml'),
      [
        'name: esc',
        'stages:',
        '  up:',
        '    cpu: 0.1',
        `    command: [iris, result, set, v, ${JSON.stringify(value)}]`,
        '  down:',
        '    cpu: 0.1',
        '    needs: [up]',
        '    command: [echo, "${stages.up.result.v}"]',
        '',
      ].join('\n'),
    );
    const run = await c.iris(['run', '-f', 'esc.yaml']);
    expect(run.code, describeRun(['run', '-f', 'esc.yaml'], run)).toBe(0);
    const shown = '\\x1b[2J\\x1b]0;pwned\\x07\\x9b31mred';
    const table = await c.iris(['results', 'esc/up']);
    expect(table.stdout).toContain(`v    ${shown}`);
    expect(table.stdout).not.toMatch(RAW_CONTROL);
    const status = await c.iris(['status', 'esc/down']);
    expect(status.stdout).toContain(`echo '${shown}'`);
    expect(status.stdout).not.toMatch(RAW_CONTROL);
    const json = await c.iris(['results', 'esc/up', '--json']);
    expect(json.stdout).not.toMatch(RAW_CONTROL);
    expect(results(JSON.parse(json.stdout) as ResultsResponse)).toEqual([['v', value]]);
  });

  // Last: it stops the cluster.
  it('six FIFOs as result files at once: the cluster still launches, logs and stops', async () => {
    // Six tasks of one job, started together: more FIFOs than libuv has threads (4).
    await c.submit(['--name', 'fifos', '--replicas', '6', '--cpu', '0.1'], ['sh', '-c', 'mkfifo "$IRIS_RESULT_FILE"']);
    const job = await c.waitForEnd('/fifos');
    expect(job.state).toBe('SUCCEEDED');
    expect(job.taskList.map((t) => t.reason)).toEqual(
      Array(6).fill('result file ignored: it is a FIFO, not a regular file'),
    );
    const after = await c.iris(['run', '--name', 'after-fifos', '--cpu', '0.1', '--', 'echo', 'still here']);
    expect(after.code, describeRun(['run', 'after-fifos'], after)).toBe(0);
    expect(after.stdout).toContain('still here');
    const stop = await c.iris(['cluster', 'stop'], { timeoutMs: 20_000 });
    expect(stop.code, describeRun(['cluster', 'stop'], stop)).toBe(0);
  });
});

const DOCKER = (await dockerTestEnv()).run;

describe.skipIf(!DOCKER)('hostile results: a container task', () => {
  let c: E2ECluster;
  let clusterId = '';
  beforeAll(async () => {
    ({ c, clusterId } = await startDockerCluster(CONFIG));
  });
  afterAll(() => stopDockerCluster(c, clusterId));

  it('a symlink from inside the container to a host secret is ignored, quoting nothing of it', async () => {
    const secret = path.join(c.root, 'host-secret.json');
    writeFileSync(secret, JSON.stringify({ password: 'hunter2-container' }));
    chmodSync(secret, 0o600);
    const r = await c.iris([
      'run',
      '--name',
      'cln',
      '--image',
      BUSYBOX,
      '--cpu',
      '0.2',
      '--',
      'sh',
      '-c',
      `ln -s ${secret} "$IRIS_RESULT_FILE"`,
    ]);
    expect(r.code, describeRun(['run', 'cln'], r)).toBe(0);
    const job = await c.job('/cln');
    expect(reasonOf(job)).toBe('result file ignored: it is a symbolic link (never followed)');
    expect(results(await c.json<ResultsResponse>(['results', 'cln']))).toEqual([]);
  });

  it('a result a container stage publishes never runs as a shell command of a host stage', async () => {
    const { payload, markers } = injection(c.cwd);
    const write = `cat > "$IRIS_RESULT_FILE" <<'EOF'\n${JSON.stringify({ score: payload })}\nEOF`;
    writeFileSync(
      path.join(c.cwd, 'cinject.yaml'),
      [
        'name: cinject',
        'stages:',
        '  untrusted:',
        `    image: ${BUSYBOX}`,
        '    cpu: 0.2',
        `    command: ${JSON.stringify(write)}`,
        '  host:',
        '    cpu: 0.1',
        '    needs: [untrusted]',
        '    command: echo score=${stages.untrusted.result.score}',
        '',
      ].join('\n'),
    );
    const run = await c.iris(['run', '-f', 'cinject.yaml']);
    expect(run.code, describeRun(['run', '-f', 'cinject.yaml'], run)).toBe(0);
    expect((await c.logs('/cinject/host')).map((l) => l.text)).toEqual([`score=${payload}`]);
    expect(markers.filter((m) => existsSync(m))).toEqual([]);
  });
});
