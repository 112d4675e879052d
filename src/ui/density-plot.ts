/**
 * Renders the density series (docs/metrics.md) for `iris metrics density`: as a text table, and
 * as a small standalone SVG (`--plot FILE.svg`) with two lines over time — tasks submitted per
 * bucket and active workers — each on its own y axis (left: submissions, right: workers), time on
 * the x axis in UTC, a legend and axis titles. Pure: returns strings.
 */
import type { DensitySeries } from '../api/metrics.js';
import { escapeXml, niceTicks } from '../plot/svg.js';

const W = 800;
const H = 400;
const M = { left: 64, right: 64, top: 40, bottom: 56 };
const SUBMISSIONS_COLOUR = '#1f77b4';
const WORKERS_COLOUR = '#d62728';

const fmt = (n: number): string => (Math.round(n * 10) / 10).toString();

/** `HH:MM` (UTC) of an instant, with the date when the series spans more than a day. */
function timeLabel(ms: number, withDate: boolean): string {
  const iso = new Date(ms).toISOString();
  return withDate ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(11, 16);
}

export function densitySvg(series: DensitySeries): string {
  const { buckets } = series;
  const bucketMs = series.bucketSeconds * 1000;
  const t0 = buckets[0]?.start ?? 0;
  const t1 = buckets.length > 1 ? buckets.at(-1)!.start : t0 + bucketMs;
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const x = (t: number): number => M.left + ((t - t0) / Math.max(1, t1 - t0)) * plotW;
  // The same round ticks as `iris simulate --plot` (1, 2, 5 × 10^k); an empty series gets 0..1.
  const subTicks = niceTicks(Math.max(1, ...buckets.map((b) => b.submissions)), 4);
  const workerTicks = niceTicks(Math.max(1, ...buckets.map((b) => b.activeWorkers)), 4);
  const subTop = subTicks.at(-1)!;
  const workerTop = workerTicks.at(-1)!;
  const yS = (v: number): number => M.top + plotH - (v / subTop) * plotH;
  const yW = (v: number): number => M.top + plotH - (v / workerTop) * plotH;
  const points = (y: (v: number) => number, pick: (b: DensitySeries['buckets'][number]) => number): string =>
    buckets.map((b) => `${fmt(x(b.start))},${fmt(y(pick(b)))}`).join(' ');
  const withDate = t1 - t0 > 86_400_000;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
  );
  out.push(`<title>iris task submissions and active workers per ${series.bucketSeconds}s bucket</title>`);
  out.push(`<rect x="0" y="0" width="${W}" height="${H}" fill="white"/>`);
  out.push(
    `<text x="${W / 2}" y="20" text-anchor="middle" font-size="14">Task submissions and active workers (per ` +
      `${series.bucketSeconds}s bucket)</text>`,
  );
  // Axes.
  out.push(
    `<g stroke="#444" fill="none"><line x1="${M.left}" y1="${M.top + plotH}" x2="${M.left + plotW}" y2="` +
      `${M.top + plotH}"/>` +
      `<line x1="${M.left}" y1="${M.top}" x2="${M.left}" y2="${M.top + plotH}"/><line x1="${M.left + plotW}" y1="` +
      `${M.top}" x2="${M.left + plotW}" y2="${M.top + plotH}"/></g>`,
  );
  for (const v of subTicks) {
    out.push(
      `<text x="${M.left - 6}" y="${fmt(yS(v) + 4)}" text-anchor="end" fill="${SUBMISSIONS_COLOUR}">${fmt(v)}</text>`,
    );
  }
  for (const v of workerTicks) {
    out.push(`<text x="${M.left + plotW + 6}" y="${fmt(yW(v) + 4)}" fill="${WORKERS_COLOUR}">${fmt(v)}</text>`);
  }
  const ticks = Math.min(6, Math.max(1, buckets.length - 1));
  for (let i = 0; i <= ticks; i++) {
    const t = t0 + ((t1 - t0) * i) / ticks;
    out.push(
      `<text x="${fmt(x(t))}" y="${M.top + plotH + 18}" text-anchor="middle">${escapeXml(timeLabel(t, withDate))}` +
        `</text>`,
    );
  }
  out.push(`<text x="${M.left + plotW / 2}" y="${H - 12}" text-anchor="middle">time (UTC)</text>`);
  out.push(
    `<text transform="translate(16 ${M.top + plotH / 2}) rotate(-90)" text-anchor="middle" fill="` +
      `${SUBMISSIONS_COLOUR}">tasks submitted per bucket</text>`,
  );
  out.push(
    `<text transform="translate(${W - 12} ${M.top + plotH / 2}) rotate(90)" text-anchor="middle" fill="` +
      `${WORKERS_COLOUR}">active workers</text>`,
  );
  // The two series.
  out.push(
    `<polyline id="submissions" fill="none" stroke="${SUBMISSIONS_COLOUR}" stroke-width="2" points="` +
      `${points(yS, (b) => b.submissions)}"/>`,
  );
  out.push(
    `<polyline id="active-workers" fill="none" stroke="${WORKERS_COLOUR}" stroke-width="2" stroke-dasharray="6 3" ` +
      `points="${points(yW, (b) => b.activeWorkers)}"/>`,
  );
  // Legend.
  out.push(
    `<g transform="translate(${M.left + 10} ${M.top + 8})"><line x1="0" y1="0" x2="20" y2="0" stroke="` +
      `${SUBMISSIONS_COLOUR}" stroke-width="2"/><text x="26" y="4">tasks submitted</text>` +
      `<line x1="140" y1="0" x2="160" y2="0" stroke="${WORKERS_COLOUR}" stroke-width="2" stroke-dasharray="6 ` +
      `3"/><text x="166" y="4">active workers</text></g>`,
  );
  out.push('</svg>');
  return out.join('\n') + '\n';
}

/** The series as text: one line per bucket (UTC start, submissions, active workers). */
export function densityTable(series: DensitySeries): string {
  if (series.buckets.length === 0) return `no buckets yet (bucket ${series.bucketSeconds}s)`;
  const rows = [['BUCKET (UTC)', 'SUBMITTED', 'ACTIVE WORKERS']];
  for (const b of series.buckets)
    rows.push([
      new Date(b.start).toISOString().slice(0, 19).replace('T', ' '),
      String(b.submissions),
      String(b.activeWorkers),
    ]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '))
    .join('\n');
}
