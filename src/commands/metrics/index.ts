import type { MetricSample } from '../../api/metrics.js';
import { BaseCommand } from '../../base-command.js';
import { parsePrometheusText } from '../../ui/prometheus-text.js';

export default class Metrics extends BaseCommand {
  static override summary = "Print the cluster's Prometheus metrics.";
  static override description =
    'Prints what GET /metrics on the cluster socket answers, in the Prometheus text format: jobs, tasks and workers ' +
    'by state, ' +
    'queue length, scheduling pass durations, dispatches, requeues by reason, failures by cause, the cost per hour ' +
    'of enabled ' +
    'workers and process metrics (docs/metrics.md lists them). --json gives the samples as a list of {name, labels, ' +
    'value}. ' +
    'For a Prometheus server, start the cluster with --metrics-port N and scrape http://127.0.0.1:N/metrics.';

  static override examples = [
    '<%= config.bin %> metrics',
    '<%= config.bin %> metrics | grep iris_jobs',
    '<%= config.bin %> metrics --json',
  ];

  protected override jsonInstants = false;

  async run(): Promise<MetricSample[]> {
    await this.parse(Metrics);
    const text = await this.client().metrics();
    if (this.jsonEnabled()) return parsePrometheusText(text);
    process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    return [];
  }
}
