import { describe, expect, it } from 'vitest';
import { shellScriptIndex } from '../../src/model/shell-command.js';

describe('shellScriptIndex', () => {
  it.each([
    [['sh', '-c', 'echo hi'], 2],
    [['/bin/bash', '-euc', 'echo hi', 'name', 'arg'], 2],
    [['bash', '-e', '-o', 'pipefail', '-c', 'x'], 5],
    [['bash', '-euxo', 'pipefail', '-c', 'x'], 4],
    [['bash', '--norc', '--rcfile', 'f', '-c', 'x'], 5],
    [['sh', '-c', '--', 'x'], 3],
    [['env', 'A=1', 'zsh', '-c', 'x'], 4],
    [['timeout', '60', 'sh', '-xc', 'x'], 4],
    [['busybox', 'sh', '-c', 'x'], 3],
  ])('finds the script of %j', (argv, index) => {
    expect(shellScriptIndex(argv)).toBe(index);
  });

  it.each([
    [['echo', 'hi']],
    [['sh', 'script.sh', '-c']],
    [['sh', '-e', 'script.sh']],
    [['sh', '+c', 'x']],
    [['sh', '-c']],
    [['python', '-c', 'print(1)']],
  ])('finds no script in %j', (argv) => {
    expect(shellScriptIndex(argv)).toBeNull();
  });
});
