/**
 * Hand-written SVG of a simulation: queue length (jobs waiting) and utilization over time, in
 * two stacked panels sharing the time axis. Both series are step functions sampled at event
 * batches; long runs are reduced per pixel column to (entry, min, max, exit) so the drawing
 * keeps every peak while staying a few thousand points. Escaping and ticks are plot/svg.ts's.
 */
import { escapeXml, niceTicks } from '../plot/svg.js';
import type { SimSample } from './engine.js';

export interface PlotOptions {
  title: string;
  width?: number;
  height?: number;
}

interface Panel {
  top: number;
  height: number;
  max: number;
  label: string;
  ticks: number[];
  format: (v: number) => string;
  value: (s: SimSample) => number;
  color: string;
  id: string;
}

const MARGIN = { left: 70, right: 24, top: 48, bottom: 52, gap: 44 };

/** Time unit for the x axis from the span in seconds. */
function timeUnit(span: number): { name: string; seconds: number } {
  if (span >= 3 * 86400) return { name: 'days', seconds: 86400 };
  if (span >= 3 * 3600) return { name: 'hours', seconds: 3600 };
  if (span >= 3 * 60) return { name: 'minutes', seconds: 60 };
  return { name: 'seconds', seconds: 1 };
}

const fmt = (v: number): string => (Number.isInteger(v) ? String(v) : v.toFixed(Math.abs(v) < 1 ? 2 : 1));

/** Step-line points for one series, reduced per pixel column. */
function seriesPoints(
  samples: readonly SimSample[],
  x: (t: number) => number,
  y: (v: number) => number,
  value: (s: SimSample) => number,
): string {
  const out: string[] = [];
  let column = NaN;
  let entry = 0;
  let lo = 0;
  let hi = 0;
  let last = 0;
  let prev: number | null = null;
  const flush = () => {
    if (Number.isNaN(column)) return;
    const px = column.toFixed(1);
    for (const v of [entry, lo, hi, last]) out.push(`${px},${y(v).toFixed(1)}`);
  };
  for (const sample of samples) {
    const v = value(sample);
    const c = Math.round(x(sample.time) * 2) / 2;
    if (c !== column) {
      flush();
      column = c;
      entry = prev ?? v;
      lo = Math.min(entry, v);
      hi = Math.max(entry, v);
    } else {
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
    last = v;
    prev = v;
  }
  flush();
  return out.join(' ');
}

export function renderPlot(samples: readonly SimSample[], options: PlotOptions): string {
  const width = options.width ?? 960;
  const height = options.height ?? 560;
  const plotWidth = width - MARGIN.left - MARGIN.right;
  const panelHeight = (height - MARGIN.top - MARGIN.bottom - MARGIN.gap) / 2;
  const t0 = samples[0]?.time ?? 0;
  const t1 = samples.at(-1)?.time ?? 0;
  const span = Math.max(t1 - t0, 1);
  const unit = timeUnit(span);
  const x = (t: number) => MARGIN.left + ((t - t0) / span) * plotWidth;
  let maxQueue = 0;
  for (const s of samples) if (s.queued > maxQueue) maxQueue = s.queued;
  const queueTicks = niceTicks(Math.max(maxQueue, 1));
  const panels: Panel[] = [
    {
      id: 'queue',
      top: MARGIN.top,
      height: panelHeight,
      max: queueTicks.at(-1)!,
      label: 'queued jobs',
      ticks: queueTicks,
      format: fmt,
      value: (s) => s.queued,
      color: '#c0392b',
    },
    {
      id: 'utilization',
      top: MARGIN.top + panelHeight + MARGIN.gap,
      height: panelHeight,
      max: 1,
      label: 'utilization',
      ticks: [0, 0.25, 0.5, 0.75, 1],
      format: (v) => `${Math.round(v * 100)}%`,
      value: (s) => s.utilization,
      color: '#2471a3',
    },
  ];
  const timeTicks = niceTicks(span / unit.seconds, 8);
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}` +
      `" font-family="sans-serif" font-size="12">`,
  );
  parts.push(`<title>${escapeXml(options.title)}</title>`);
  parts.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`);
  parts.push(
    `<text x="${width / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">` +
      `${escapeXml(options.title)}</text>`,
  );
  for (const panel of panels) {
    const y = (v: number) => panel.top + panel.height - (Math.min(v, panel.max) / panel.max) * panel.height;
    const bottom = panel.top + panel.height;
    parts.push(`<g id="${panel.id}-panel">`);
    for (const tick of panel.ticks) {
      const ty = y(tick).toFixed(1);
      parts.push(`<line x1="${MARGIN.left}" y1="${ty}" x2="${MARGIN.left + plotWidth}" y2="${ty}" stroke="#e5e5e5"/>`);
      parts.push(`<line x1="${MARGIN.left - 5}" y1="${ty}" x2="${MARGIN.left}" y2="${ty}" stroke="#333"/>`);
      parts.push(
        `<text x="${MARGIN.left - 8}" y="${ty}" text-anchor="end" dominant-baseline="middle">${panel.format(tick)}` +
          `</text>`,
      );
    }
    for (const tick of timeTicks) {
      const tx = x(t0 + tick * unit.seconds);
      if (tx > MARGIN.left + plotWidth + 0.5) continue;
      parts.push(`<line x1="${tx.toFixed(1)}" y1="${bottom}" x2="${tx.toFixed(1)}" y2="${bottom + 5}" stroke="#333"/>`);
      parts.push(`<text x="${tx.toFixed(1)}" y="${bottom + 18}" text-anchor="middle">${fmt(tick)}</text>`);
    }
    parts.push(`<line x1="${MARGIN.left}" y1="${panel.top}" x2="${MARGIN.left}" y2="${bottom}" stroke="#333"/>`);
    parts.push(
      `<line x1="${MARGIN.left}" y1="${bottom}" x2="${MARGIN.left + plotWidth}" y2="${bottom}" stroke="#333"/>`,
    );
    const midY = panel.top + panel.height / 2;
    parts.push(
      `<text x="16" y="${midY}" text-anchor="middle" transform="rotate(-90 16 ${midY})">${panel.label}</text>`,
    );
    if (samples.length > 0) {
      parts.push(
        `<polyline id="${panel.id}-series" fill="none" stroke="${panel.color}" stroke-width="1.2" points="` +
          `${seriesPoints(samples, x, y, panel.value)}"/>`,
      );
    }
    parts.push('</g>');
  }
  parts.push(
    `<text x="${MARGIN.left + plotWidth / 2}" y="${height - 12}" text-anchor="middle">time since the first ` +
      `submission (${unit.name})</text>`,
  );
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}
