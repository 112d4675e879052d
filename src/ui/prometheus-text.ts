/**
 * Reads the Prometheus text exposition format (what GET /metrics answers) into samples for
 * `iris metrics --json`: one {name, labels, value} per sample line, in order. Comment lines
 * (HELP, TYPE) and blank lines are skipped; label values are unescaped (\\, \", \n); values
 * `NaN` (prom-client writes `Nan`, e.g. a fresh process's event loop lag), `+Inf` and `-Inf`
 * become the numbers (JSON writes them as null). A line that is not a sample is an error naming
 * its line number.
 */
import { IrisError } from '../model/errors.js';
import type { MetricSample } from '../api/metrics.js';

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

export function parsePrometheusText(text: string): MetricSample[] {
  const out: MetricSample[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const sample = parseLine(line);
    if (!sample) throw new IrisError('internal', `unreadable metrics line ${i + 1}: ${line.slice(0, 120)}`);
    out.push(sample);
  });
  return out;
}

function parseLine(line: string): MetricSample | null {
  const name = NAME.exec(line)?.[0];
  if (!name) return null;
  let at = name.length;
  const labels: Record<string, string> = {};
  if (line[at] === '{') {
    at++;
    for (;;) {
      while (line[at] === ' ' || line[at] === ',') at++;
      if (line[at] === '}') {
        at++;
        break;
      }
      const key = NAME.exec(line.slice(at))?.[0];
      if (!key || line[at + key.length] !== '=' || line[at + key.length + 1] !== '"') return null;
      at += key.length + 2;
      let value = '';
      while (at < line.length && line[at] !== '"') {
        if (line[at] === '\\') {
          const next = line[at + 1];
          value += next === 'n' ? '\n' : next;
          at += 2;
        } else {
          value += line[at++];
        }
      }
      if (line[at] !== '"') return null;
      at++;
      labels[key] = value;
    }
  }
  const [valueText] = line.slice(at).trim().split(/\s+/);
  if (!valueText) return null;
  const value = valueText === '+Inf' ? Infinity : valueText === '-Inf' ? -Infinity : Number(valueText);
  if (Number.isNaN(value) && valueText !== 'NaN' && valueText !== 'Nan') return null;
  return { name, labels, value };
}
