import { describe, expect, it } from 'vitest';
import {
  FRAME,
  FrameReader,
  MAX_FRAME_BYTES,
  execQuery,
  frame,
  frames,
  parseExecQuery,
} from '../../src/api/exec-frames.js';

describe('exec frames', () => {
  it('a frame is a type byte, a big-endian length and the payload; a reader gets whole frames from any cut', () => {
    const bytes = Buffer.concat([
      frame(FRAME.STDOUT, 'hello'),
      frame(FRAME.STDIN_END),
      frame(FRAME.RESIZE, '{"rows":2,"cols":3}'),
    ]);
    expect([...bytes.subarray(0, 5)]).toEqual([FRAME.STDOUT, 0, 0, 0, 5]);
    for (const cut of [1, 3, 7, 11, bytes.length - 1]) {
      const reader = new FrameReader();
      const got = [...reader.push(bytes.subarray(0, cut)), ...reader.push(bytes.subarray(cut))];
      expect(got.map((f) => [f.type, f.payload.toString()])).toEqual([
        [FRAME.STDOUT, 'hello'],
        [FRAME.STDIN_END, ''],
        [FRAME.RESIZE, '{"rows":2,"cols":3}'],
      ]);
    }
  });

  it('big data is cut into frames of at most MAX_FRAME_BYTES; a larger frame is refused', () => {
    const parts = frames(FRAME.STDERR, Buffer.alloc(MAX_FRAME_BYTES * 2 + 1));
    expect(parts.map((p) => p.readUInt32BE(1))).toEqual([MAX_FRAME_BYTES, MAX_FRAME_BYTES, 1]);
    const head = Buffer.from([FRAME.STDIN, 0, 1, 0, 1]);
    expect(() => new FrameReader().push(head)).toThrow(/larger than 65536/);
  });
});

describe('the exec query', () => {
  it('round-trips a request', () => {
    const request = {
      task: '/t/task-1',
      attempt: 2,
      command: ['sh', '-c', 'echo "a b" & x'],
      tty: true,
      stdin: true,
      size: { rows: 40, cols: 120 },
    };
    expect(parseExecQuery(new URLSearchParams(execQuery(request)))).toEqual(request);
    expect(parseExecQuery(new URLSearchParams(execQuery({ task: 't/task-0', command: ['ls'] })))).toEqual({
      task: 't/task-0',
      command: ['ls'],
      tty: false,
      stdin: false,
    });
  });

  it.each([
    ['cmd=ls', 'query parameter "task" is required'],
    ['task=t/task-0', 'no command given'],
    ['task=t/task-0&cmd=ls&attempt=x', 'query parameter "attempt" must be a whole number from 0 to 1000000, got "x"'],
    ['task=t/task-0&cmd=ls&rows=10', 'give both query parameters "rows" and "cols", or neither'],
    ['task=t/task-0&cmd=ls&tty=maybe', 'query parameter "tty" must be 1 or 0'],
    ['task=t/task-0&cmd=a%00b', 'cmd[0] may not contain a NUL character'],
  ])('refuses %s', (query, message) => {
    expect(() => parseExecQuery(new URLSearchParams(query))).toThrow(message);
  });
});
