/**
 * Spool files: the task writes its stdout and stderr into two plain files (`.run/<attempt>.out`
 * and `.err`, wrapper.ts), never into a pipe held by the controller. A file has no reader to
 * lose: a task keeps writing (and is never blocked nor killed by SIGPIPE) while the controller
 * is down, and the next controller finds every byte.
 *
 * SpoolPump moves spool bytes into the attempt's log through LogWriter, in batches:
 * - a batch takes, per stream, whole lines only (a partial last line waits for its newline,
 *   unless it is already MAX_LINE_BYTES long, or the pump is finishing);
 * - one LogWriter serves the attempt (its write buffer and the pump's read buffers are reused,
 *   so a chatty task makes little garbage); a batch's lines are flushed to the log file
 *   (`LogWriter.flushed()`) BEFORE the new offsets are written to the `.pos` file (one 42-byte pwrite at offset 0), so
 *   a crash never skips bytes;
 *   a crash between the two repeats at most that one batch (<= BATCH_BYTES per stream) after
 *   a restart;
 * - it wakes on fs.watch events of the `.run` directory, one watcher shared by the attempts
 *   there (dir-watch.ts; a 250 ms poll where that fails);
 * - the log limit (`limitBytes`) counts the log file's size: past it the LogWriter cuts the log
 *   with its note, and from then on the spools are emptied instead of read (discard()), so a
 *   task past its limit costs no disk;
 * - finish() drains everything (partial lines included) and removes the spools and `.pos`.
 * Line times are the times of ingestion: lines a task wrote while no controller ran get the time
 * they were recovered.
 *
 * The small file operations are synchronous: opening the spools, the log's size, a quiet stream's
 * read (at most 64 KiB, from the page cache), the 42-byte `.pos` write, closing and unlinking. Each
 * costs the controller's thread a few µs, where a trip through the thread pool costs it ~40 µs,
 * and a trivial task makes about a dozen of them (docs/benchmarks.md, "Where a trivial task's time
 * goes"). They go to the disk the state database already writes synchronously from this thread.
 * A busy stream's 1 MiB reads stay in the thread pool.
 */
import { closeSync, constants, openSync, read, readSync, statSync, truncateSync, unlinkSync, writeSync } from 'node:fs';
import { promisify } from 'node:util';
import { myUid, readTaskFile } from '../task-file.js';
import { basename } from 'node:path';
import { MAX_LINE_BYTES, type StreamTag } from '../../logs/format.js';
import { LogWriter } from '../../logs/writer.js';
import type { AttemptFiles } from './wrapper.js';
import { watchFiles } from './dir-watch.js';

/** Most bytes of one stream moved in one batch. */
export const BATCH_BYTES = 1024 * 1024;
/**
 * A quiet stream's read (a stream that filled one switches to BATCH_BYTES). Its buffer is borrowed
 * for one batch from a free list shared by all pumps, not owned by the attempt: when each attempt
 * had its own two 64 KiB buffers (outside the JS heap, freed only when the collector got to them),
 * 2,000 short tasks grew the cluster's malloc heap by tens of MB (docs/benchmarks.md, "Memory").
 */
const SMALL_READ = 64 * 1024;
/** Most free small buffers kept (more only while that many batches read at once). */
const SMALL_KEPT = 32;
const smallFree: Buffer[] = [];

function borrowSmall(): Buffer {
  return smallFree.pop() ?? Buffer.allocUnsafe(SMALL_READ);
}

function giveBackSmall(buf: Buffer): void {
  if (smallFree.length < SMALL_KEPT) smallFree.push(buf);
}
const POLL_MS = 250;
const NEWLINE = 0x0a;
const NEWLINE_BUF = Buffer.from('\n');

type Offsets = Record<StreamTag, number>;

function formatPos(o: Offsets): Buffer {
  return Buffer.from(`${String(o.o).padStart(20, '0')} ${String(o.e).padStart(20, '0')}\n`, 'latin1');
}

/** Offsets already in the log, from a `.pos` file; zeros when it is missing or torn. */
export async function readPos(path: string): Promise<Offsets> {
  // In the attempt's `.run/` directory, which the task's uid can write: read safely (task-file.ts).
  const read = readTaskFile(path, { maxBytes: 64, owner: myUid() });
  const text = read.kind === 'ok' ? read.data.toString('latin1') : '';
  const m = /^(\d{20}) (\d{20})\n/.exec(text);
  return m ? { o: Number(m[1]), e: Number(m[2]) } : { o: 0, e: 0 };
}

/** Spool and `.pos` files are opened without following a symlink (O_NOFOLLOW); `.pos` is created 0600. */
function openOrNull(path: string, flags: number): number | null {
  try {
    return openSync(path, flags | constants.O_NOFOLLOW, 0o600);
  } catch {
    return null;
  }
}

/** A file's size, 0 when it is missing or cannot be read: the log's is what the log limit counts. */
function sizeOrZero(path: string): number {
  try {
    return statSync(path, { throwIfNoEntry: false })?.size ?? 0;
  } catch {
    return 0;
  }
}

/** Closes `fd`, ignoring errors (the file is done with either way). */
function closeQuietly(fd: number | null): void {
  if (fd === null) return;
  try {
    closeSync(fd);
  } catch {
    // already closed or gone
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // never made, or already removed
  }
}

/** A busy stream's big read, in the thread pool. */
const readBig = promisify(read);

export interface SpoolPumpOptions {
  now?: () => number;
  /** Told of the first error writing the log (e.g. ENOSPC); from then on the spools are emptied, not read. */
  onError?: (error: NodeJS.ErrnoException) => void;
  /** Start from the offsets in `.pos` (a restarted controller taking over). Default false: from 0. */
  resume?: boolean;
  /** The attempt's log limit in bytes (LogWriter's `limitBytes`); default none. */
  limitBytes?: number | null;
}

export class SpoolPump {
  private readonly offsets: Offsets = { o: 0, e: 0 };
  private readonly busy: Record<StreamTag, boolean> = { o: false, e: false };
  /** The spools' file descriptors (null: not there). */
  private readonly handles: Record<StreamTag, number | null> = { o: null, e: null };
  private pos: number | null = null;
  /** Stops following the spools' directory (dir-watch.ts); null when not watching. */
  private unwatch: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private finished: Promise<void> | null = null;
  /** One writer for the attempt's life (its write buffer is reused from batch to batch). */
  private writer: LogWriter | null = null;
  /** Big read buffers, kept while a stream stays busy (a quiet stream borrows a small one per batch). */
  private readonly bufs: Record<StreamTag, Buffer | null> = { o: null, e: null };
  /** The log reached its limit: it ends with the cut note; later spool bytes are skipped. */
  cut = false;
  /** The first error writing the log; the log is cut from there (later spool bytes are skipped). */
  error: NodeJS.ErrnoException | null = null;

  private constructor(
    private readonly files: AttemptFiles,
    private readonly logPath: string,
    private readonly options: SpoolPumpOptions,
  ) {}

  /** Opens the spools (created by the caller) and starts following them. */
  static async start(files: AttemptFiles, logPath: string, options: SpoolPumpOptions = {}): Promise<SpoolPump> {
    const pump = new SpoolPump(files, logPath, options);
    await pump.open();
    pump.follow();
    pump.kick();
    return pump;
  }

  /** After a restart: moves what is left of an attempt's spools into its log and removes them. */
  static async drainLeftovers(files: AttemptFiles, logPath: string, now?: () => number): Promise<void> {
    const pump = new SpoolPump(files, logPath, { resume: true, ...(now ? { now } : {}) });
    await pump.open();
    await pump.finish();
  }

  private async open(): Promise<void> {
    if (this.options.resume) Object.assign(this.offsets, await readPos(this.files.pos));
    const limit = this.options.limitBytes ?? null;
    this.handles.o = openOrNull(this.files.out, constants.O_RDONLY);
    this.handles.e = openOrNull(this.files.err, constants.O_RDONLY);
    if (this.options.resume) this.pos = openOrNull(this.files.pos, constants.O_RDWR);
    // A log already at its limit (cut before a restart) takes no more output.
    if (limit !== null && sizeOrZero(this.logPath) >= limit) this.cut = true;
  }

  /** Records the offsets (the `.pos` file is created by the first batch: a silent task has none). */
  private savePos(): void {
    this.pos ??= openOrNull(this.files.pos, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC);
    if (this.pos === null) return;
    try {
      writeSync(this.pos, formatPos(this.offsets), 0, 42, 0);
    } catch {
      // the next batch writes the offsets again
    }
  }

  private follow(): void {
    try {
      // One watcher per directory, shared with the other attempts there (dir-watch.ts).
      this.unwatch = watchFiles(
        this.files.dir,
        [basename(this.files.out), basename(this.files.err)],
        () => this.kick(),
        () => {
          this.unwatch = null;
          this.poll();
        },
      );
    } catch {
      this.poll();
    }
  }

  private poll(): void {
    this.unwatch?.();
    this.unwatch = null;
    if (this.timer || this.finished) return;
    this.timer = setInterval(() => this.kick(), POLL_MS);
    this.timer.unref();
  }

  private kick(): void {
    if (this.finished) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop(false).finally(() => {
      this.running = null;
    });
  }

  private async loop(final: boolean): Promise<void> {
    do {
      this.again = false;
      while (await this.batch(final)) {
        // keep going while there are bytes
      }
    } while (this.again && !this.finished);
  }

  /** Moves one batch; false when there was nothing to move. */
  private async batch(final: boolean): Promise<boolean> {
    if (this.cut || this.error !== null) return this.discard();
    const lent: Buffer[] = [];
    try {
      return await this.move(final, lent);
    } finally {
      for (const buf of lent) giveBackSmall(buf);
    }
  }

  /** One batch's reads and writes; the small read buffers it borrows are put in `lent`. */
  private async move(final: boolean, lent: Buffer[]): Promise<boolean> {
    const take: Partial<Record<StreamTag, Buffer>> = {};
    const cutLines: Partial<Record<StreamTag, boolean>> = {};
    // A quiet stream is read here and now; busy streams' big reads go to the thread pool together.
    // Settled both before anything is given back: a buffer must not be in a read in flight.
    const settled = await Promise.allSettled(
      (['o', 'e'] as const).map(async (tag) => {
        const handle = this.handles[tag];
        if (handle === null) return null;
        // Small reads for a quiet task, big ones while a stream has more than one read's worth.
        const size = this.busy[tag] ? BATCH_BYTES : SMALL_READ;
        let buf: Buffer;
        if (size === SMALL_READ) {
          buf = borrowSmall();
          lent.push(buf);
        } else {
          buf = this.bufs[tag] ??= Buffer.allocUnsafe(BATCH_BYTES);
        }
        const at = this.offsets[tag];
        const bytesRead =
          size === SMALL_READ
            ? readSync(handle, buf, 0, size, at)
            : (await readBig(handle, buf, 0, size, at)).bytesRead;
        return { tag, buf, size, bytesRead };
      }),
    );
    const reads = settled.map((r) => {
      if (r.status === 'rejected') throw r.reason;
      return r.value;
    });
    for (const read of reads) {
      if (read === null) continue;
      const { tag, buf, size, bytesRead } = read;
      this.busy[tag] = bytesRead === size;
      if (!this.busy[tag] && size === BATCH_BYTES) this.bufs[tag] = null;
      if (bytesRead === 0) continue;
      let end = bytesRead;
      if (!final) {
        // Whole lines only; a line longer than a log line is cut where the log would split it.
        const nl = buf.lastIndexOf(NEWLINE, bytesRead - 1);
        end = nl >= 0 ? nl + 1 : bytesRead >= MAX_LINE_BYTES ? MAX_LINE_BYTES : 0;
        // A line cut at MAX_LINE_BYTES is ended here, as the log splits long lines anyway, so the
        // writer holds nothing back that the offsets below already count.
        if (nl < 0 && end > 0) cutLines[tag] = true;
      }
      if (end > 0) take[tag] = buf.subarray(0, end);
    }
    if (!take.o && !take.e) return false;
    if (!this.cut) {
      this.writer ??= new LogWriter(this.logPath, {
        ...(this.options.now ? { now: this.options.now } : {}),
        limitBytes: this.options.limitBytes ?? null,
        countedBytes: sizeOrZero(this.logPath),
      });
      const writer = this.writer;
      for (const tag of ['o', 'e'] as const) {
        const chunk = take[tag];
        if (chunk) writer.write(tag, chunk);
        if (cutLines[tag]) writer.write(tag, NEWLINE_BUF);
      }
      // The writer copied the chunks: the read buffers are free again.
      await writer.flushed();
      this.cut = writer.cut;
      if (writer.error !== null) {
        this.error = writer.error;
        this.options.onError?.(writer.error);
      }
    }
    if (take.o) this.offsets.o += take.o.length;
    if (take.e) this.offsets.e += take.e.length;
    this.savePos();
    return true;
  }

  /**
   * Past the log limit (or the first failed log write) the spools are emptied instead of read,
   * so a chatty task cannot fill the disk with output nobody keeps. The task opened them
   * O_APPEND: its next write lands at the new end. Bytes written between two discards are dropped, as everything past
   * the cut is.
   */
  private async discard(): Promise<boolean> {
    // Only a spool that has bytes is emptied: truncating is itself a change the watcher reports,
    // so emptying empty spools would wake this pump again at once, over and over.
    let emptied = false;
    for (const f of [this.files.out, this.files.err]) {
      if (sizeOrZero(f) === 0) continue;
      try {
        truncateSync(f, 0);
        emptied = true;
      } catch {
        // gone: nothing to empty
      }
    }
    if (emptied || this.offsets.o !== 0 || this.offsets.e !== 0) {
      this.offsets.o = 0;
      this.offsets.e = 0;
      this.savePos();
    }
    return false;
  }

  /** Once nothing writes the spools any more: moves every byte left, then removes the spools. */
  finish(): Promise<void> {
    this.finished ??= (async () => {
      this.unwatch?.();
      this.unwatch = null;
      if (this.timer) clearInterval(this.timer);
      this.timer = null;
      await this.running;
      await this.loop(true);
      await this.writer?.close();
      if (this.writer?.error && this.error === null) this.error = this.writer.error;
      const left = [this.files.out, this.files.err];
      if (this.pos !== null || this.options.resume) left.push(this.files.pos);
      closeQuietly(this.handles.o);
      closeQuietly(this.handles.e);
      closeQuietly(this.pos);
      this.handles.o = this.handles.e = this.pos = null;
      // unlink, not rm: rm({force}) first lstat()s each file.
      for (const f of left) unlinkQuietly(f);
    })();
    return this.finished;
  }
}
