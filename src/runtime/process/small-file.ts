/**
 * readSmallText: the whole text of a small file (a cgroup counter, `cgroup.procs`, `/proc/<pid>/stat`,
 * a `.pos` or `times` file) without fs.readFile's buffers. readFile sizes its buffer from fstat,
 * and the files of cgroupfs and procfs report size 0, so it allocates a 64 KiB buffer outside the
 * JS heap for each read of a few bytes. A cluster reads several such files for every attempt; at
 * hundreds of attempts a second those buffers (freed only when the collector gets to them) grew
 * the process's malloc heap by tens of MB (docs/benchmarks.md, "Memory"). Here the first buffer is
 * 2 KiB from Node's shared pool, doubled only when a file fills it; the file is read to its end.
 *
 * Errors are fs's own (ENOENT for a missing file, …): callers keep their handling.
 */
import { open } from 'node:fs/promises';

const FIRST_BUFFER = 2048;

export async function readSmallText(path: string, encoding: BufferEncoding = 'utf8'): Promise<string> {
  const handle = await open(path, 'r');
  try {
    let buf = Buffer.allocUnsafe(FIRST_BUFFER);
    let length = 0;
    for (;;) {
      if (length === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, length);
        buf = bigger;
      }
      const { bytesRead } = await handle.read(buf, length, buf.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return buf.toString(encoding, 0, length);
  } finally {
    await handle.close();
  }
}
