/**
 * Splits the engine's multiplexed attach stream (non-TTY containers) into stdout and stderr
 * lines of a LogWriter. Each frame is an 8-byte header (stream type: 1 stdout, 2 stderr; three
 * zero bytes; payload length as uint32 big-endian) followed by the payload. The source is paused
 * while the writer is behind, so a chatty container never fills memory.
 */
import type { Readable } from 'node:stream';
import type { LogWriter } from '../../logs/writer.js';

const HEADER = 8;

/** Resolves when the source ended, closed or failed (never rejects); all its frames were written. */
export function pumpDemuxed(source: Readable, writer: LogWriter): Promise<void> {
  return new Promise((resolve) => {
    let buffer: Buffer = Buffer.alloc(0);
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      source.off('data', onData);
      resolve();
    };
    const onData = (chunk: Buffer): void => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      let offset = 0;
      let more = true;
      while (buffer.length - offset >= HEADER) {
        const type = buffer[offset]!;
        const size = buffer.readUInt32BE(offset + 4);
        if (buffer.length - offset < HEADER + size) break;
        const payload = buffer.subarray(offset + HEADER, offset + HEADER + size);
        // Type 0 (stdin echo) does not occur without a TTY; treat anything but stderr as stdout.
        if (size > 0) more = writer.write(type === 2 ? 'e' : 'o', payload) && more;
        offset += HEADER + size;
      }
      buffer = offset === buffer.length ? Buffer.alloc(0) : Buffer.from(buffer.subarray(offset));
      if (!more) {
        source.pause();
        void writer.drained().then(() => {
          if (!done) source.resume();
        });
      }
    };
    source.on('data', onData);
    source.once('end', finish);
    source.once('close', finish);
    source.once('error', finish);
  });
}
