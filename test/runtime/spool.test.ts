// SpoolPump (src/runtime/process/spool.ts) on real files in a temporary directory: what a task's
// output becomes in its log, past the log limit, and that a quiet spool is left alone.
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cutNote } from '../../src/logs/format.js';
import { SpoolPump } from '../../src/runtime/process/spool.js';
import { attemptFiles, type AttemptFiles } from '../../src/runtime/process/wrapper.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(10);
  }
}

let root: string;
let logPath: string;
let files: AttemptFiles;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'iris-spool-'));
  logPath = join(root, 'task-0', 'attempt-0.log');
  files = attemptFiles(logPath);
  mkdirSync(files.dir, { recursive: true });
  writeFileSync(files.out, '', { mode: 0o600 });
  writeFileSync(files.err, '', { mode: 0o600 });
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

const logText = (): string => {
  try {
    return readFileSync(logPath, 'utf8');
  } catch {
    return '';
  }
};

describe('SpoolPump', () => {
  it('moves both streams into the log as they are written, and removes the spools when finished', async () => {
    const pump = await SpoolPump.start(files, logPath);
    appendFileSync(files.out, 'hello\n');
    appendFileSync(files.err, 'oops\n');
    await until('both lines are in the log', () => logText().includes('hello') && logText().includes('oops'));
    appendFileSync(files.out, 'no newline yet');
    await pump.finish();
    expect(logText()).toContain('no newline yet');
    expect(() => statSync(files.out)).toThrow();
    expect(() => statSync(files.err)).toThrow();
  });

  it(
    'past the limit: the log ends with the cut note, later output is emptied, and a quiet spool is not touched ' +
      'again',
    async () => {
      const pump = await SpoolPump.start(files, logPath, { limitBytes: 1024 });
      appendFileSync(files.out, `${'x'.repeat(99)}\n`.repeat(40));
      await until('the log is cut', () => pump.cut);
      await until('the spool is emptied', () => statSync(files.out).size === 0);
      expect(logText()).toContain(cutNote(1024));
      // The task writes on: the pump empties the spool again.
      appendFileSync(files.out, 'more\n'.repeat(100));
      await until('the new bytes are emptied', () => statSync(files.out).size === 0);
      // Quiet now: emptying an empty spool would itself wake the pump, over and over.
      await sleep(50);
      const before = statSync(files.out, { bigint: true });
      await sleep(300);
      const after = statSync(files.out, { bigint: true });
      expect(after.ctimeNs).toBe(before.ctimeNs);
      await pump.finish();
      expect(logText()).not.toContain('more');
    },
  );
});
