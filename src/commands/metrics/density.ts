import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Flags } from '../../oclif.js';
import type { DensitySeries } from '../../api/metrics.js';
import { resolveHome } from '../../api/address.js';
import { BaseCommand } from '../../base-command.js';
import { readDensityFile } from '../../client/density-file.js';
import { IrisError } from '../../model/errors.js';
import { densitySvg, densityTable } from '../../ui/density-plot.js';

export default class MetricsDensity extends BaseCommand {
  static override summary = 'Show the task submission and active worker density series, or plot it as SVG.';
  static override description =
    'Needs `metrics: {density: true}` in the config. Per bucket (metrics.density-bucket, default 60s): the tasks ' +
    'submitted and the ' +
    'READY workers. Asks the running cluster, or reads <IRIS_HOME>/metrics/task_worker_density.json when none runs. ' +
    '--plot FILE.svg draws both series over time as an SVG image.';

  static override examples = [
    '<%= config.bin %> metrics density',
    '<%= config.bin %> metrics density --plot density.svg',
    '<%= config.bin %> metrics density --json',
  ];

  static override flags = {
    plot: Flags.string({ summary: 'Write the series as an SVG chart to this file.', helpValue: 'FILE.svg' }),
  };

  protected override jsonInstants = false;

  async run(): Promise<DensitySeries & { plot?: string }> {
    const { flags } = await this.parse(MetricsDensity);
    const series = await this.series();
    if (flags.plot !== undefined) {
      const file = path.resolve(flags.plot);
      try {
        writeFileSync(file, densitySvg(series));
      } catch (error) {
        throw new IrisError(
          'invalid_argument',
          `cannot write the plot to ${file}: ${(error as Error).message}`,
          'give a path in a directory that exists and you may write',
        );
      }
      this.log(
        `wrote ${file} (${series.buckets.length} bucket${series.buckets.length === 1 ? '' : 's'} of ` +
          `${series.bucketSeconds}s)`,
      );
      return { ...series, plot: file };
    }
    this.log(densityTable(series));
    return series;
  }

  /** From the running cluster, or the file a stopped one left. */
  private async series(): Promise<DensitySeries> {
    const client = this.client();
    if (this.env.IRIS_CONTROLLER_ADDRESS || (await client.ping())) return client.density();
    const home = resolveHome(this.env);
    const series = readDensityFile(home);
    process.stderr.write(`iris: no cluster is running; showing the density series saved in ${home}\n`);
    return series;
  }
}
