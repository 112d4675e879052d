/**
 * readSmallText / readKernelFile: the whole text of a small file (a cgroup counter, `cgroup.procs`, `/proc/<pid>/stat`,
 * a `.pos` or `times` file) without fs.readFile's buffers. readFile sizes its buffer from fstat,
 * and the files of cgroupfs and procfs report size 0, so it allocates a 64 KiB buffer outside the
 * JS heap for each read of a few bytes. A cluster reads several such files for every attempt; at
 * hundreds of attempts a second those buffers (freed only when the collector gets to them) grew
 * the process's malloc heap by tens of MB (docs/benchmarks.md, "Memory"). Here the first buffer is
 * 2 KiB from Node's shared pool, doubled only when a file fills it; the file is read to its end.
 *
 * readKernelFile does the same in one synchronous call, for cgroup and /proc files: the kernel
 * makes them on read and they never wait for a disk, so the thread pool's trips of an async read
 * cost more than the read itself (~0.1 ms of CPU per attempt each).
 *
 * Errors are fs's own (ENOENT for a missing file, …): callers keep their handling.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';

const FIRST_BUFFER = 2048;

/** `buf` when it has room after `length` bytes, else a copy twice its size. */
function withRoom(buf: Buffer<ArrayBuffer>, length: number): Buffer<ArrayBuffer> {
  if (length < buf.length) return buf;
  const bigger = Buffer.allocUnsafe(buf.length * 2);
  buf.copy(bigger, 0, 0, length);
  return bigger;
}

export function readKernelFile(path: string, encoding: BufferEncoding = 'utf8'): string {
  const fd = openSync(path, 'r');
  try {
    let buf = Buffer.allocUnsafe(FIRST_BUFFER);
    let length = 0;
    for (;;) {
      buf = withRoom(buf, length);
      const bytesRead = readSync(fd, buf, length, buf.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return buf.toString(encoding, 0, length);
  } finally {
    closeSync(fd);
  }
}

export async function readSmallText(path: string, encoding: BufferEncoding = 'utf8'): Promise<string> {
  const handle = await open(path, 'r');
  try {
    let buf = Buffer.allocUnsafe(FIRST_BUFFER);
    let length = 0;
    for (;;) {
      buf = withRoom(buf, length);
      const { bytesRead } = await handle.read(buf, length, buf.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return buf.toString(encoding, 0, length);
  } finally {
    await handle.close();
  }
}
