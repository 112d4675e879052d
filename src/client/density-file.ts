/**
 * Reads the density series a stopped cluster left in its state directory
 * (`<home>/metrics/task_worker_density.json`, docs/metrics.md) for `iris metrics density`.
 * A missing file is not_found with a hint to turn the series on; an unreadable one says so.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DENSITY_FILE, type DensitySeries } from '../api/metrics.js';
import { IrisError, notFound } from '../model/errors.js';

export function readDensityFile(home: string): DensitySeries {
  const file = path.join(home, DENSITY_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw notFound(
        `no density series in ${home} (${file} does not exist)`,
        'set `metrics: {density: true}` in the config, start the cluster, and the series is written while it runs ' +
          'and when it stops',
      );
    }
    throw new IrisError('unavailable', `cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    const series = JSON.parse(text) as DensitySeries;
    if (series.version !== 1 || !Array.isArray(series.buckets)) throw new Error('not a version 1 series');
    return series;
  } catch (error) {
    throw new IrisError(
      'invalid_argument',
      `${file} is not a density series: ${(error as Error).message}`,
      'remove it; the cluster writes a new one',
    );
  }
}
