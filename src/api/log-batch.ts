/**
 * The one way to turn the log items of GET /v1/logs into lines: a LogBatch holds consecutive
 * lines of one attempt and stream (docs/api.md). A controller of an earlier iris sent one
 * LogLine per item; `asLogBatch` reads both, so a new CLI works against an old running cluster.
 */
import type { LogBatch, LogLine } from './types.js';

/** The texts of a batch, one per line. */
export function batchTexts(batch: LogBatch): string[] {
  return batch.times.length === 2 && batch.times[1] === 1 ? [batch.text] : batch.text.split('\n');
}

/** The lines of a batch as LogLine objects, in order. */
export function* batchLines(batch: LogBatch): Generator<LogLine> {
  const texts = batchTexts(batch);
  const { task, attempt, stream, times } = batch;
  let k = 0;
  for (let r = 0; r < times.length; r += 2) {
    const time = times[r]!;
    for (let n = times[r + 1]!; n > 0; n--) yield { time, task, attempt, stream, text: texts[k++]! };
  }
}

/** A wire item as a batch: a LogBatch as it is, a single LogLine (an earlier controller) as a batch of one. */
export function asLogBatch(item: LogBatch | LogLine): LogBatch {
  if ('times' in item) return item;
  return { task: item.task, attempt: item.attempt, stream: item.stream, times: [item.time, 1], text: item.text };
}
