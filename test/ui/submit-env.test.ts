import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  MAX_ENV_FILE_BYTES,
  exportable,
  exportedEnv,
  parseEnvFile,
  readEnvFile,
  submitEnv,
} from '../../src/ui/submit-env.js';
import { isSecretEnvName, shownEnv } from '../../src/model/secret-env.js';

const HOST = {
  PATH: '/usr/bin',
  HOME: '/root',
  USER: 'root',
  SHELL: '/bin/bash',
  LANG: 'C.UTF-8',
  LC_ALL: 'C',
  XDG_RUNTIME_DIR: '/run/user/0',
  SSH_AUTH_SOCK: '/tmp/a',
  IRIS_HOME: '/x',
  HF_TOKEN: 'hf_secret',
  WANDB_PROJECT: 'p',
  'BASH_FUNC_f%%': '() { :; }',
};

describe('--export', () => {
  it('NONE (the default) copies nothing', () => {
    expect(exportedEnv(undefined, HOST)).toEqual({});
    expect(exportedEnv('none', HOST)).toEqual({});
  });

  it(
    "ALL copies everything but the host's own variables: no PATH, HOME, USER, SHELL, locale, XDG_*, SSH_*, " + 'IRIS_*',
    () => {
      expect(exportedEnv('ALL', HOST)).toEqual({ HF_TOKEN: 'hf_secret', WANDB_PROJECT: 'p' });
      for (const name of ['PATH', 'HOME', 'USER', 'PWD', 'SHLVL', 'TMPDIR', 'LD_LIBRARY_PATH', 'IRIS_X'])
        expect(exportable(name)).toBe(false);
    },
  );

  it('a list copies exactly those, PATH too when named; an unset or bad name is a usage error', () => {
    expect(exportedEnv('HF_TOKEN, PATH', HOST)).toEqual({ HF_TOKEN: 'hf_secret', PATH: '/usr/bin' });
    expect(() => exportedEnv('NOPE', HOST)).toThrow('--export NOPE: it is not set in your environment');
    expect(() => exportedEnv('A-B', HOST)).toThrow(/--export "A-B": invalid variable name "A-B"/);
    expect(() => exportedEnv('IRIS_HOME', HOST)).toThrow(/IRIS_ variables are reserved/);
  });
});

describe('--env-file (the docker run --env-file format)', () => {
  it(
    'reads KEY=VALUE literally, copies a bare KEY when set (else leaves it out), skips comments and blank ' + 'lines',
    () => {
      const text = '\uFEFF# a comment\n\nLR=0.01\n  DATA=/d=x\nQUOTED="kept as is"  \nHF_TOKEN\nUNSET_X\nEMPTY=\r\n';
      expect(parseEnvFile(text, 'vars.env', HOST)).toEqual({
        LR: '0.01',
        DATA: '/d=x',
        QUOTED: '"kept as is"  ',
        HF_TOKEN: 'hf_secret',
        EMPTY: '',
      });
    },
  );

  it.each([
    ['A=1\nBAD NAME=2\n', '--env-file vars.env:2: variable "BAD NAME" contains blanks'],
    ['A=1\n\n1X=2\n', '--env-file vars.env:3: invalid variable name "1X"'],
    ['IRIS_TASK_ID=x\n', '--env-file vars.env:1: IRIS_TASK_ID: IRIS_ variables are reserved'],
  ])('refuses %j naming the file and the line', (text, message) => {
    expect(() => parseEnvFile(text, 'vars.env', HOST)).toThrow(message);
  });

  const dir = mkdtempSync(path.join(tmpdir(), 'iris-envfile-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a file; a missing, oversized or non-UTF-8 file is refused naming it', () => {
    const good = path.join(dir, 'good.env');
    writeFileSync(good, 'A=1\n');
    expect(readEnvFile(good, {})).toEqual({ A: '1' });
    expect(() => readEnvFile(path.join(dir, 'missing.env'), {})).toThrow(
      `--env-file ${path.join(dir, 'missing.env')}: cannot read it (ENOENT)`,
    );
    const big = path.join(dir, 'big.env');
    writeFileSync(big, Buffer.alloc(MAX_ENV_FILE_BYTES + 1, 0x41));
    expect(() => readEnvFile(big, {})).toThrow(/bytes, more than the 1048576 an env file may have/);
    const binary = path.join(dir, 'bin.env');
    writeFileSync(binary, Buffer.from([0x41, 0x3d, 0x31, 0x0a, 0x42, 0x3d, 0xff, 0xfe, 0x0a]));
    expect(() => readEnvFile(binary, {})).toThrow(`--env-file ${binary}:2: not UTF-8 text`);
  });
});

describe('submitEnv: --export, then each --env-file, then -e', () => {
  it("a later source wins; -e KEY copies the submitter's value", () => {
    const files: Record<string, Record<string, string>> = { 'a.env': { LR: '1', B: 'file' }, 'b.env': { LR: '2' } };
    const env = submitEnv(
      { export: 'WANDB_PROJECT', 'env-file': ['a.env', 'b.env'], env: ['B=flag', 'HF_TOKEN'] },
      HOST,
      (file) => files[file]!,
    );
    expect(env).toEqual({ WANDB_PROJECT: 'p', LR: '2', B: 'flag', HF_TOKEN: 'hf_secret' });
    expect(submitEnv({}, HOST)).toBeUndefined();
  });
});

describe('secret-looking names', () => {
  it.each(['HF_TOKEN', 'WANDB_API_KEY', 'aws_secret_access_key', 'DB_PASSWORD', 'GITHUB_TOKEN', 'SSH_KEY_PATH'])(
    '%s is hidden',
    (name) => {
      expect(isSecretEnvName(name)).toBe(true);
    },
  );

  it('shownEnv keeps the names and hides those values only', () => {
    expect(shownEnv({ LR: '0.1', HF_TOKEN: 'hf_x', MY_SECRET: 's' })).toEqual({
      LR: '0.1',
      HF_TOKEN: null,
      MY_SECRET: null,
    });
  });
});
