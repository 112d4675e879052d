/**
 * The workers page's Gantt chart (GET /v1/timeline, over the window chosen): rows = workers, bars =
 * attempts, coloured by state family (the tooltip names the task, attempt, state and times). An SVG; an older cluster
 * without the route (404) gets a note instead.
 */
import { formatTime, stateClass } from '../format.js';
import { ganttRows, type TimelineResponse, ticks } from '../timeline.js';

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
const LABEL = 110;
const WIDTH = 900;

export function Gantt({ timeline, workers, now }: { timeline: TimelineResponse; workers: string[]; now: number }) {
  const rows = ganttRows(timeline, workers, now);
  const { from } = timeline;
  const to = Math.max(timeline.to, from + 1);
  const x = (t: number) => LABEL + ((t - from) / (to - from)) * (WIDTH - LABEL - 10);
  let y = 20;
  const placed = rows.map((row) => {
    const top = y;
    y += row.lanes * LANE + 6;
    return { row, top };
  });
  const height = y + 4;
  return (
    <div class="scroll">
      <svg class="gantt" viewBox={`0 0 ${WIDTH} ${height}`} width={WIDTH} height={height} role="img" data-gantt>
        <title>attempts per worker over the window</title>
        {ticks(from, to).map((t) => (
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
              {row.worker.length > 16 ? `${row.worker.slice(0, 15)}…` : row.worker}
            </text>
            <line
              x1={LABEL}
              x2={WIDTH - 10}
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
