/**
 * The workers page's plots (GET /v1/metrics/series): queue length (pending jobs, running tasks)
 * and utilisation (CPU, memory, accelerators, in % of the total) over the last hour, drawn with
 * uPlot. Colours from the Okabe–Ito palette, and each series is named in the legend.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import type { MetricsSeries, SeriesSample } from '../../api/metrics.js';

export type { MetricsSeries };

const pct = (p: { used: number; total: number }) => (p.total > 0 ? (100 * p.used) / p.total : null);

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
  // biome-ignore lint/correctness/useExhaustiveDependencies: made once; later data goes through setData below
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const width = () => Math.max(260, Math.min(900, el.clientWidth || 600));
    plot.current = new uPlot(
      {
        title,
        width: width(),
        height: 200,
        series: [{}, ...series],
        scales: max ? { y: { range: [0, max] } } : {},
        axes: [{}, { size: 50 }],
      },
      data,
      el,
    );
    const resize = () => plot.current?.setSize({ width: width(), height: 200 });
    addEventListener('resize', resize);
    return () => {
      removeEventListener('resize', resize);
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
