/**
 * The workers page's plots (GET /v1/metrics/series): queue length (pending jobs, running tasks)
 * and utilisation (CPU, memory, accelerators, in % of the total) over the last hour, drawn with
 * uPlot. Colours from the Okabe–Ito palette, and each series is named in the legend. Each plot is as
 * wide as its box (re-sized when the box changes: a window resized), its legend wraps, and times read
 * in 24 hours as the rest of the page (`03:25` on the axis, `03:25:10` in the legend).
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import type { MetricsSeries, SeriesSample } from '../../api/metrics.js';
import { axisTimes, legendTime } from '../format.js';
import { useWidth } from '../hooks.js';

export type { MetricsSeries };

const pct = (p: { used: number; total: number }) => (p.total > 0 ? (100 * p.used) / p.total : null);

const HEIGHT = 200;
const widthOf = (box: number) => Math.max(200, box || 600);

/** uPlot's columns: seconds, then one array per series. */
export function plotData(samples: readonly SeriesSample[]): { queue: uPlot.AlignedData; use: uPlot.AlignedData } {
  const t = samples.map((s) => s.time / 1000);
  return {
    queue: [t, samples.map((s) => s.pendingJobs), samples.map((s) => s.runningTasks)],
    use: [
      t,
      samples.map((s) => pct(s.cpu)),
      samples.map((s) => pct(s.memoryBytes)),
      samples.map((s) => pct(s.accelerators)),
    ],
  };
}

function Plot({
  title,
  data,
  series,
  max,
}: {
  title: string;
  data: uPlot.AlignedData;
  series: uPlot.Series[];
  max?: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  useWidth(box, (w) => plot.current?.setSize({ width: widthOf(w), height: HEIGHT }));
  // biome-ignore lint/correctness/useExhaustiveDependencies: made once; later data goes through setData below
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    plot.current = new uPlot(
      {
        title,
        width: widthOf(el.clientWidth),
        height: HEIGHT,
        series: [{ value: (_u, t) => legendTime(t, Date.now()) }, ...series],
        scales: max ? { y: { range: [0, max] } } : {},
        // space: the least room per tick label (px), so HH:MM:SS labels never run into each other.
        axes: [{ space: 90, values: (_u, splits, _axis, _space, step) => axisTimes(splits, step) }, { size: 50 }],
      },
      data,
      el,
    );
    return () => {
      plot.current?.destroy();
      plot.current = null;
    };
  }, []);
  useEffect(() => plot.current?.setData(data), [data]);
  return <div class="plot" ref={box} data-plot={title} />;
}

const line = (label: string, stroke: string, dash?: number[]): uPlot.Series => ({ label, stroke, width: 2, dash });

export function Plots({ series }: { series: MetricsSeries }) {
  const { queue, use } = plotData(series.samples);
  return (
    <div class="plots">
      <Plot
        title="Queue"
        data={queue}
        series={[line('pending jobs', '#E69F00'), line('running tasks', '#0072B2', [6, 3])]}
      />
      <Plot
        title="Utilisation %"
        data={use}
        max={100}
        series={[line('CPU', '#0072B2'), line('memory', '#D55E00', [6, 3]), line('accelerators', '#009E73', [2, 2])]}
      />
    </div>
  );
}
