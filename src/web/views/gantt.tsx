/**
 * The workers page's Gantt chart (GET /v1/timeline, over the window chosen): rows = workers, bars =
 * attempts, coloured by state family (the tooltip names the task, attempt, state and times). An SVG
 * drawn at its box's width (text stays its size; a narrow box gets a narrower label column and fewer
 * ticks, one narrower than MIN_WIDTH scrolls inside the box); its time axis runs to now. An older
 * cluster without the route (404) gets a note instead.
 */
import { useRef } from 'preact/hooks';
import { formatTime, stateClass } from '../format.js';
import { useWidth } from '../hooks.js';
import { ganttRows, type TimelineResponse, ticks, windowOf } from '../timeline.js';

const LANE = 14;
const ended = (a: { end: number | null }, now: number) => (a.end ? formatTime(a.end, now) : 'running');
/** The legend: each colour family named in words (the tooltip of a bar names its exact state). */
const LEGEND: [string, string][] = [
  ['running', 'running'],
  ['ok', 'succeeded'],
  ['failed', 'failed, timed out, out of memory'],
  ['stopped', 'killed, cancelled, preempted'],
  ['other', 'other'],
];
const MIN_WIDTH = 280;
/** Pixels per tick label at most (`03:25` at 10px is about 28px wide). */
const TICK_SPACING = 64;

export function Gantt({ timeline, workers, now }: { timeline: TimelineResponse; workers: string[]; now: number }) {
  const box = useRef<HTMLDivElement>(null);
  const width = Math.max(MIN_WIDTH, useWidth(box) || 900);
  const label = width < 560 ? 64 : 110;
  const chars = width < 560 ? 9 : 16;
  const { from, to } = windowOf(timeline, now);
  const rows = ganttRows({ ...timeline, from, to }, workers, now);
  const x = (t: number) => label + ((t - from) / (to - from)) * (width - label - 10);
  let y = 20;
  const placed = rows.map((row) => {
    const top = y;
    y += row.lanes * LANE + 6;
    return { row, top };
  });
  const height = y + 4;
  return (
    <div class="scroll" ref={box}>
      <svg class="gantt" viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img" data-gantt>
        <title>attempts per worker over the window</title>
        {ticks(from, to, Math.floor((width - label) / TICK_SPACING)).map((t) => (
          <g key={t}>
            <line x1={x(t)} x2={x(t)} y1={14} y2={height} class="tick" />
            <text x={x(t)} y={10} class="axis" text-anchor="middle">
              {formatTime(t, now).slice(0, 5)}
            </text>
          </g>
        ))}
        {placed.map(({ row, top }) => (
          <g key={row.worker} data-gantt-worker={row.worker}>
            <text x={4} y={top + LANE - 3} class="axis">
              {row.worker.length > chars ? `${row.worker.slice(0, chars - 1)}…` : row.worker}
            </text>
            <line
              x1={label}
              x2={width - 10}
              y1={top + row.lanes * LANE + 3}
              y2={top + row.lanes * LANE + 3}
              class="row"
            />
            {row.bars.map((bar) => (
              <rect
                key={`${bar.attempt.task}#${bar.attempt.attempt}`}
                x={x(bar.start)}
                y={top + bar.lane * LANE}
                width={Math.max(2, x(bar.end) - x(bar.start))}
                height={LANE - 2}
                class={`bar st-${stateClass(bar.attempt.state)}`}
                data-gantt-task={bar.attempt.task}
              >
                <title>
                  {`${bar.attempt.task} #${bar.attempt.attempt} ${bar.attempt.state}\n` +
                    `${formatTime(bar.attempt.start, now)} – ${ended(bar.attempt, now)}`}
                </title>
              </rect>
            ))}
          </g>
        ))}
      </svg>
      <p class="legend small" data-gantt-legend>
        {LEGEND.map(([cls, label]) => (
          <span key={cls}>
            <span class={`swatch st-${cls}`} /> {label}
          </span>
        ))}
      </p>
      {timeline.truncated ? <p class="muted small">only the newest attempts are shown</p> : null}
    </div>
  );
}
