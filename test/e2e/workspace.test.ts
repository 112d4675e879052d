/**
 * E2E (issue 30, §1, §2, §4): a container is a workspace. On the real Docker engine with the built
 * binary: a file of the submit directory is read inside the container at the same path, its
 * working directory (`--cwd` overrides, `--no-workspace` leaves it out); `--mount SRC:DST:ro` is
 * read-only and a child inherits it; `-e VAR` copies the submitter's value, `--env-file` and
 * `--export` bring the rest (never the host's PATH or HOME); `iris status` and `--dry-run` show a
 * secret-looking variable's name, never its value; and the refusals of a mount at submit (a
 * relative or missing SRC, a DST that is not absolute, a process job, a directory the container's
 * user cannot read) and of a GPU container on an engine without the NVIDIA runtime, each with its
 * message and exit code. The config's `workspace: false` leaves the submit directory out (`--workspace`
 * brings it back) and its `mounts` are in every container job, refused at submit once the source is
 * gone. (The refusals that are security rules: test/hostile/mounts.test.ts.)
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EstimateResponse, JobDetail } from '../../src/api/types.js';
import { BUSYBOX, NODE_IMAGE, docker, dockerTestEnv } from '../helpers/docker.js';
import { startDockerCluster, stopDockerCluster } from './docker-fixture.js';
import { describeRun, type E2ECluster } from './harness.js';
import { joined } from '../helpers/regex.js';

const inCI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';
const env = await dockerTestEnv();
const READY = env.run || inCI;
const HAS_NVIDIA =
  env.run && Object.keys(JSON.parse(docker(['info', '--format', '{{json .Runtimes}}'])) as object).includes('nvidia');

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 4, memory: 4GiB, gpu: {variant: H100, count: 2}}
`;

async function logText(c: E2ECluster, target: string): Promise<string> {
  return (await c.logs(target)).map((l) => l.text).join('\n');
}

describe.skipIf(!READY)("the submit directory and the submitter's environment in a container", () => {
  let c: E2ECluster;
  let clusterId = '';
  beforeAll(async () => {
    ({ c, clusterId } = await startDockerCluster(CONFIG));
    writeFileSync(path.join(c.cwd, 'train.py'), "the user's code\n");
    mkdirSync(path.join(c.cwd, 'sub'));
  }, 60_000);
  afterAll(() => stopDockerCluster(c, clusterId));

  it(
    'a file of the submit directory is readable in the container, at the same path, which is its working ' +
      'directory',
    async () => {
      const args = [
        'run',
        '--name',
        'code',
        '--image',
        BUSYBOX,
        '--cpu',
        '0.2',
        '--',
        'sh',
        '-c',
        'echo "pwd=$(pwd)"; cat train.py',
      ];
      const r = await c.iris(args, { timeoutMs: 60_000 });
      expect(r.code, describeRun(args, r)).toBe(0);
      expect(r.stdout).toContain(`pwd=${c.cwd}`);
      expect(r.stdout).toContain("the user's code");
      const status = await c.iris(['status', '/code']);
      expect(status.stdout).toMatch(new RegExp(`Workdir: +${c.cwd}`));
      expect(status.stdout).toMatch(new RegExp(`Mounts: +${c.cwd}:${c.cwd}\\n`));
    },
  );

  it(
    "--cwd overrides the working directory; --no-workspace leaves the directory out (the image's own is " + 'used)',
    async () => {
      const sub = await c.iris(
        ['run', '--image', BUSYBOX, '--cwd', path.join(c.cwd, 'sub'), '--', 'sh', '-c', 'pwd; cat ../train.py'],
        { timeoutMs: 60_000 },
      );
      expect(sub.code, describeRun(['run', '--cwd'], sub)).toBe(0);
      expect(sub.stdout).toContain(path.join(c.cwd, 'sub'));
      expect(sub.stdout).toContain("the user's code");
      const none = await c.iris(
        ['run', '--image', BUSYBOX, '--no-workspace', '--', 'sh', '-c', `pwd; ls ${c.cwd} || echo no-workspace`],
        { timeoutMs: 60_000 },
      );
      expect(none.code, describeRun(['run', '--no-workspace'], none)).toBe(0);
      expect(none.stdout).toMatch(/^\S+ \S+ \/$/m);
      expect(none.stdout).toContain('no-workspace');
    },
  );

  it('--mount SRC:DST:ro is there read-only, and a child of the task inherits it', async () => {
    const data = path.join(c.root, 'dataset');
    mkdirSync(data, { recursive: true });
    writeFileSync(path.join(data, 'rows.csv'), 'a,b\n');
    const kid = 'iris run --name kid -- sh -c "cat /data/rows.csv; touch /data/x 2>&1 || true"';
    const args = [
      'run',
      '--name',
      'mnt',
      '--image',
      NODE_IMAGE,
      '--mount',
      `${data}:/data:ro`,
      '--cpu',
      '0.2',
      '--',
      'sh',
      '-c',
      kid,
    ];
    const r = await c.iris(args, { timeoutMs: 90_000 });
    expect(r.code, describeRun(args, r)).toBe(0);
    const child = await logText(c, '/mnt/kid/task-0');
    expect(child).toContain('a,b');
    expect(child).toMatch(/Read-only file system/);
    const job = await c.job('/mnt/kid');
    expect(job.runsIn?.mounts).toEqual(expect.arrayContaining([{ source: data, target: '/data', readOnly: true }]));
  });

  it(
    "-e VAR copies the submitter's value; --env-file and --export bring more, never the host's PATH or HOME; " +
      'secrets show as names',
    async () => {
      writeFileSync(path.join(c.cwd, 'vars.env'), '# settings\nLR=0.01\nWANDB_API_KEY=key-from-file\n');
      const probe =
        'echo "hf=$HF_TOKEN lr=$LR wandb=$WANDB_API_KEY project=$WANDB_PROJECT home=$HOME"; echo "path=$PATH"';
      const args = [
        'run',
        '--name',
        'envs',
        '--image',
        BUSYBOX,
        '-e',
        'HF_TOKEN',
        '--env-file',
        'vars.env',
        '--export',
        'ALL',
        '--',
        'sh',
        '-c',
        probe,
      ];
      const r = await c.iris(args, {
        timeoutMs: 60_000,
        env: {
          HF_TOKEN: 'hf_from_shell',
          WANDB_PROJECT: 'proj',
          HOME: '/home/somebody',
          PATH: `/host/only/bin:${process.env.PATH}`,
        },
      });
      expect(r.code, describeRun(args, r)).toBe(0);
      expect(r.stdout).toContain('hf=hf_from_shell lr=0.01 wandb=key-from-file project=proj');
      expect(r.stdout).not.toContain('/home/somebody');
      expect(r.stdout).not.toContain('/host/only/bin');
      const status = await c.iris(['status', '/envs']);
      expect(status.stdout).toMatch(/Env: .*HF_TOKEN=\(hidden\)/);
      expect(status.stdout).toMatch(/WANDB_API_KEY=\(hidden\)/);
      expect(status.stdout).toContain('LR=0.01');
      expect(status.stdout + JSON.stringify(await c.job('/envs'))).not.toMatch(/hf_from_shell|key-from-file/);
      const dry = await c.iris(['submit', '--dry-run', '--image', BUSYBOX, '-e', 'HF_TOKEN', '--', 'true'], {
        env: { HF_TOKEN: 'hf_dry_secret' },
      });
      expect(dry.code, describeRun(['submit', '--dry-run'], dry)).toBe(0);
      expect(dry.stdout).toMatch(/Env: +HF_TOKEN=\(hidden\)/);
      expect(dry.stdout).not.toContain('hf_dry_secret');
      const dryJson = await c.json<EstimateResponse>(
        ['submit', '--dry-run', '--image', BUSYBOX, '-e', 'HF_TOKEN', '--', 'true'],
        { env: { HF_TOKEN: 'hf_dry_secret' } },
      );
      expect(dryJson.runsIn?.env).toEqual({ HF_TOKEN: null });
    },
  );

  it.each([
    [
      '-e of an unset variable',
      ['-e', 'IRIS_TEST_UNSET_VAR'],
      2,
      '--env IRIS_TEST_UNSET_VAR: it is not set in your environment',
    ],
    [
      'an env file line that is no variable',
      ['--env-file', 'bad.env'],
      2,
      '--env-file bad.env:2: variable "NOT A NAME" contains blanks',
    ],
    [
      'a relative mount source',
      ['--mount', 'data:/data'],
      2,
      '--mount "data:/data": the host path "data" is not absolute',
    ],
    [
      'a mount target that is not absolute',
      ['--mount', '/tmp:data'],
      2,
      '--mount "/tmp:data": the path in the container "data" is not absolute',
    ],
    [
      'a missing mount source',
      ['--mount', '/no/such/iris-dir:/d'],
      2,
      '--mount "/no/such/iris-dir:/d": no such file or directory on the cluster\'s host: /no/such/iris-dir',
    ],
    [
      'a mount for a process job',
      ['--runtime', 'process', '--mount', '/tmp:/t'],
      2,
      '--mount: a process task runs on the host and sees its files already',
    ],
  ])('refuses %s at submit, with its message and exit code', async (_what, flags, code, message) => {
    writeFileSync(path.join(c.cwd, 'bad.env'), 'A=1\nNOT A NAME=2\n');
    const args = ['submit', ...(flags.includes('--runtime') ? [] : ['--image', BUSYBOX]), ...flags, '--', 'true'];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(code);
    expect(r.stderr).toContain(`Error: ${message}`);
    expect(r.stderr).toContain('Hint: ');
  });

  it("a submit directory the container's user cannot read is refused at submit with a hint (exit 4)", async () => {
    const dir = path.join(c.root, 'private', 'proj');
    mkdirSync(dir, { recursive: true });
    chmodSync(path.dirname(dir), 0o700);
    const r = await c.iris(['submit', '--image', BUSYBOX, '--', 'true'], { cwd: dir });
    expect(r.code, describeRun(['submit'], r)).toBe(4);
    expect(r.stderr).toContain(
      `Error: the submit directory ${dir}: the container's user 65534:65534 could not read it: ${path.dirname(dir)}` +
        ` is drwx------ of 0:0`,
    );
    expect(r.stderr).toMatch(/Hint: give --user-in-container UID:GID of a user who can read it.*--no-workspace/);
    const ok = await c.iris(['run', '--image', BUSYBOX, '--no-workspace', '--', 'true'], {
      cwd: dir,
      timeoutMs: 60_000,
    });
    expect(ok.code, describeRun(['run', '--no-workspace'], ok)).toBe(0);
  });

  it.skipIf(HAS_NVIDIA)(
    'a GPU job with --image on an engine without the NVIDIA runtime is refused at submit (exit 5) with the reason ' +
      'and a hint',
    async () => {
      const args = ['submit', '--name', 'cuda', '--image', BUSYBOX, '--gpu', '1', '--', 'true'];
      const r = await c.iris(args);
      expect(r.code, describeRun(args, r)).toBe(5);
      expect(r.stderr).toMatch(
        joined(
          /Error: --gpu: a container with GPUs cannot start here: the D/,
          /ocker engine has no NVIDIA runtime \(its runtimes: [^)]*runc/,
        ),
      );
      expect(r.stderr).toContain('Hint: install the NVIDIA Container Toolkit');
      expect((await c.jobs()).map((j) => j.name)).not.toContain('/cuda');
      // Without --image the same request runs as host processes (the GPUs are the host's).
      const proc = await c.json<JobDetail>(['run', '--gpu', '1', '--', 'sh', '-c', 'echo gpus=$CUDA_VISIBLE_DEVICES']);
      expect(proc.state).toBe('SUCCEEDED');
    },
  );
});

describe.skipIf(!READY)("the config's workspace: false and mounts", () => {
  const data = mkdtempSync(path.join(tmpdir(), 'iris-e2e-data-'));
  chmodSync(data, 0o755);
  writeFileSync(path.join(data, 'rows.csv'), 'from the config\n');
  let c: E2ECluster;
  let clusterId = '';
  beforeAll(async () => {
    ({ c, clusterId } = await startDockerCluster(`${CONFIG}workspace: false\nmounts: ['${data}:/data:ro']\n`));
  }, 60_000);
  afterAll(async () => {
    await stopDockerCluster(c, clusterId);
    rmSync(data, { recursive: true, force: true });
  });

  it("a container job gets the config's mounts and not the submit directory; --workspace brings it back", async () => {
    const seen = `if ls ${c.cwd} >/dev/null 2>&1; then echo has-workspace; fi`;
    const probe = ['sh', '-c', `echo "pwd=$(pwd)"; cat /data/rows.csv; ${seen}`];
    const r = await c.iris(['run', '--name', 'cfg', '--image', BUSYBOX, '--', ...probe], { timeoutMs: 60_000 });
    expect(r.code, describeRun(['run', '--name', 'cfg'], r)).toBe(0);
    expect(r.stdout).toContain('pwd=/\n');
    expect(r.stdout).toContain('from the config');
    expect(r.stdout).not.toContain('has-workspace');
    expect((await c.job('/cfg')).runsIn?.mounts).toEqual([{ source: data, target: '/data', readOnly: true }]);
    const back = await c.iris(['run', '--image', BUSYBOX, '--workspace', '--', ...probe], { timeoutMs: 60_000 });
    expect(back.code, describeRun(['run', '--workspace'], back)).toBe(0);
    expect(back.stdout).toContain(`pwd=${c.cwd}\n`);
    expect(back.stdout).toContain('from the config');
    expect(back.stdout).toContain('has-workspace');
  });

  it('a config mount whose source is gone refuses every container submit (exit 2), naming the config', async () => {
    rmSync(data, { recursive: true, force: true });
    const r = await c.iris(['submit', '--image', BUSYBOX, '--', 'true']);
    expect(r.code, describeRun(['submit'], r)).toBe(2);
    const missing = `no such file or directory on the cluster's host: ${data}`;
    expect(r.stderr).toContain(`Error: the config's mount "${data}:/data:ro": ${missing}`);
    expect(r.stderr).toContain('Hint: fix `mounts` in the cluster config');
    const proc = await c.iris(['submit', '--runtime', 'process', '--', 'true']);
    expect(proc.code, describeRun(['submit', '--runtime', 'process'], proc)).toBe(0);
  });
});
