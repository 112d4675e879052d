/**
 * The Gantt chart's layout (GET /v1/timeline): one row per worker, bars for the attempts that ran
 * there, attempts that overlap on a worker stacked in lanes of that row. Pure: `now` ends the bars
 * of attempts still running.
 *
 * Guarantees: every attempt of the answer is one bar, clipped to [from, to]; two bars in one lane
 * never overlap; workers are listed in the order given, then any worker only the timeline names.
 */

import type { TimelineAttempt, TimelineResponse } from '../api/timeline.js';

export type { TimelineAttempt, TimelineResponse };

export interface GanttBar {
  attempt: TimelineAttempt;
  lane: number;
  /** Clipped to the window. */
  start: number;
  end: number;
}

export interface GanttRow {
  worker: string;
  lanes: number;
  bars: GanttBar[];
}

export function ganttRows(timeline: TimelineResponse, workers: readonly string[], now: number): GanttRow[] {
  const { from } = timeline;
  const to = Math.max(timeline.to, from);
  const byWorker = new Map<string, TimelineAttempt[]>();
  for (const w of workers) byWorker.set(w, []);
  for (const a of timeline.attempts) {
    const list = byWorker.get(a.worker);
    if (list) list.push(a);
    else byWorker.set(a.worker, [a]);
  }
  const rows: GanttRow[] = [];
  for (const [worker, attempts] of byWorker) {
    const sorted = [...attempts].sort((a, b) => a.start - b.start);
    const laneEnds: number[] = [];
    const bars: GanttBar[] = [];
    for (const attempt of sorted) {
      const start = Math.min(Math.max(attempt.start, from), to);
      const end = Math.max(Math.min(attempt.end ?? now, to), start);
      let lane = laneEnds.findIndex((e) => e <= start);
      if (lane < 0) {
        lane = laneEnds.length;
        laneEnds.push(end);
      } else laneEnds[lane] = end;
      bars.push({ attempt, lane, start, end });
    }
    rows.push({ worker, lanes: Math.max(1, laneEnds.length), bars });
  }
  return rows;
}

/**
 * Time axis ticks every `step` ms inside [from, to], the smallest round step that gives at most
 * `most` ticks (12 by default; a narrow chart asks for fewer so their labels do not collide).
 */
export function ticks(from: number, to: number, most = 12): number[] {
  const steps = [60_000, 5 * 60_000, 10 * 60_000, 15 * 60_000, 30 * 60_000, 3_600_000, 6 * 3_600_000, 86_400_000];
  const span = Math.max(1, to - from);
  const limit = Math.max(1, most);
  const step = steps.find((s) => span / s <= limit) ?? steps[steps.length - 1];
  const out: number[] = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) out.push(t);
  return out;
}

/** The chart's window: the answer's, its end moved on to `now` (the axis runs to the present as the clock ticks). */
export function windowOf(timeline: Pick<TimelineResponse, 'from' | 'to'>, now: number): { from: number; to: number } {
  return { from: timeline.from, to: Math.max(timeline.to, now, timeline.from + 1) };
}
