/**
 * A streaming k-way merge by time of log files (LogSource each), in batches.
 *
 * Guarantees:
 * - lines come in order of time; at equal times the source given first comes first, and the
 *   lines of one source keep their order (a stable merge);
 * - memory is one block per source plus the batch being built (at most about MAX_BATCH_TEXT
 *   characters, or one segment when a segment is bigger): nothing grows with the files' size;
 * - a source's next block is read only when the merge needs its next line, and the generator
 *   only works when its consumer asks for the next batch (backpressure reaches the disk);
 * - the first `skip` lines of the merged order are dropped (tail reads start a little early);
 * - the sources are closed when the generator ends, also when its consumer stops early.
 */
import { EventHeap } from '../model/heap.js';
import type { StreamName } from './format.js';
import type { LogSource, Segment } from './scan.js';

/**
 * Text characters above which a batch is handed on: small enough that a batch, its JSON and its
 * wire bytes stay below V8's large-object size (see MAX_SEGMENT_TEXT), big enough that the
 * per-item cost is small next to the text's.
 */
export const MAX_BATCH_TEXT = 48 * 1024;

/** Consecutive merged lines of one source and stream. */
export interface SourceBatch {
  /** Index of the source in the list given to mergeSources. */
  source: number;
  stream: StreamName;
  /** Run-length times: [time, count, time, count, …]; the counts add up to `count`. */
  times: number[];
  /** The lines joined with `\n`. */
  text: string;
  count: number;
}

interface Head {
  time: number;
  seq: number;
}

/** The text after the first `n` lines of a segment's text. */
function dropLines(text: string, n: number): string {
  let at = 0;
  for (let i = 0; i < n; i++) at = text.indexOf('\n', at) + 1;
  return text.slice(at);
}

export async function* mergeSources(
  sources: readonly LogSource[],
  options: { skip?: number; signal?: AbortSignal } = {},
): AsyncGenerator<SourceBatch> {
  const queues: Segment[][] = sources.map(() => []);
  const at: number[] = sources.map(() => 0);
  const heads = new EventHeap<Head>();
  let skip = options.skip ?? 0;
  const signal = options.signal;
  /** Loads the next non-empty block of source i; false at its end. */
  const refill = async (i: number): Promise<boolean> => {
    for (;;) {
      if (signal?.aborted) return false;
      const segments = await sources[i]!.next();
      if (segments === null) return false;
      if (segments.length > 0) {
        queues[i] = segments;
        at[i] = 0;
        return true;
      }
    }
  };
  let batch: SourceBatch | null = null;
  let parts: string[] = [];
  let size = 0;
  const finish = (): SourceBatch => {
    const done = batch!;
    done.text = parts.length === 1 ? parts[0]! : parts.join('\n');
    batch = null;
    parts = [];
    size = 0;
    return done;
  };
  try {
    for (let i = 0; i < sources.length; i++) {
      if (await refill(i)) heads.push({ time: queues[i]![0]!.time, seq: i });
    }
    for (let head = heads.pop(); head !== undefined; head = heads.pop()) {
      if (signal?.aborted) return;
      const i = head.seq;
      const seg = queues[i]![at[i]!]!;
      queues[i]![at[i]!] = undefined as unknown as Segment; // let it go once taken
      at[i]!++;
      let { text, count } = seg;
      if (skip >= count) {
        skip -= count;
        count = 0;
      } else if (skip > 0) {
        text = dropLines(text, skip);
        count -= skip;
        skip = 0;
      }
      if (count > 0) {
        if (batch !== null && (batch.source !== i || batch.stream !== seg.stream || size >= MAX_BATCH_TEXT))
          yield finish();
        if (batch === null) batch = { source: i, stream: seg.stream, times: [], text: '', count: 0 };
        const times: number[] = batch.times;
        if (times.length > 0 && times[times.length - 2] === seg.time) times[times.length - 1]! += count;
        else times.push(seg.time, count);
        batch.count += count;
        parts.push(text);
        size += text.length;
      }
      if (at[i]! < queues[i]!.length || (await refill(i))) heads.push({ time: queues[i]![at[i]!]!.time, seq: i });
    }
    if (batch !== null && !signal?.aborted) yield finish();
  } finally {
    await Promise.all(sources.map((s) => s.close()));
  }
}
