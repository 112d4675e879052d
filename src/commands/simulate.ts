import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../base-command.js';
import { invalid } from '../model/errors.js';
import { DEFAULT_QUEUE_OPTIONS, QUEUE_POLICIES } from '../cluster/scheduler/queue/options.js';
import { parseWindow } from '../sim/load.js';
import { compatJson, simulationJson, type CompatJson, type SimulationJson } from '../sim/report.js';
import type { SimProgress } from '../sim/results.js';
import { ORDER_NAMES, parseOrder } from '../sim/scores.js';
import { runSimulation } from '../sim/service.js';
import { renderCompat, renderSimulation } from '../ui/simulation.js';

export default class Simulate extends BaseCommand {
  static override summary = 'Replay a workload through the iris scheduler on a virtual clock.';
  static override description =
    'TRACE is an SWF trace (*.swf) run on a pool of --procs processors, or an iris workload file (*.yaml, *.yml, *.json) ' +
    'that declares workers, TPU slices and jobs with gangs and children (see docs/simulate.md). No processes run and ' +
    'nothing sleeps: the same scheduler code as the live cluster places jobs as virtual time jumps from event to event. ' +
    'Prints average wait, average bounded slowdown (threshold 10 s), utilization and makespan; --json adds per-job results.';

  static override examples = [
    '<%= config.bin %> simulate ../shared/traces/lublin_256.swf --policy easy',
    '<%= config.bin %> simulate trace.swf --procs 128 --policy conservative --window 1981:1024 --plot run.svg',
    '<%= config.bin %> simulate workload.yaml --policy hybrid --reservation-depth 8 --json',
    '<%= config.bin %> simulate ../shared/traces/lublin_256.swf --compat rlscheduler --backfill --order sjf',
  ];

  static override args = {
    trace: Args.string({ description: 'SWF trace (*.swf) or iris workload file (*.yaml, *.yml, *.json).', required: true }),
  };

  static override flags = {
    procs: Flags.integer({ summary: 'Processors of the SWF machine (default: the MaxProcs header).', min: 1 }),
    policy: Flags.string({ summary: `Queue policy: ${QUEUE_POLICIES.join(', ')}.`, default: DEFAULT_QUEUE_OPTIONS.policy }),
    'reservation-depth': Flags.integer({ summary: 'Blocked jobs that get a reservation under hybrid.', min: 1, default: DEFAULT_QUEUE_OPTIONS.reservationDepth }),
    'queue-depth': Flags.integer({ summary: 'Pending jobs one scheduling pass considers.', min: 1, default: DEFAULT_QUEUE_OPTIONS.queueDepth }),
    window: Flags.string({ summary: 'Only SWF jobs START..START+COUNT-1 (0-based), as START:COUNT.' }),
    order: Flags.string({ summary: `Queue order for simulation studies: ${ORDER_NAMES.join(', ')}.`, default: 'fcfs' }),
    plot: Flags.string({ summary: 'Write queue length and utilization over time to this SVG file.' }),
    compat: Flags.string({ summary: 'Reproduce a published setup instead: rlscheduler (SC 2020, Table V).', options: ['rlscheduler'] }),
    release: Flags.boolean({
      summary: 'A task that waits for its subtree (wait: true) releases its CPU while it waits; --no-release holds it, to compare.',
      allowNo: true,
      default: true,
    }),
    backfill: Flags.boolean({ summary: 'With --compat rlscheduler: backfill behind the blocked head.', allowNo: true, default: false }),
  };

  /** Times in the report are virtual seconds, not instants: --json prints them as numbers. */
  protected override jsonInstants = false;

  async run(): Promise<SimulationJson | CompatJson> {
    const { args, flags, raw } = await this.parse(Simulate);
    const given = (name: string) => raw.some((token) => token.type === 'flag' && token.flag === name);
    const order = parseOrder(flags.order);
    const window = flags.window !== undefined ? parseWindow(flags.window) : undefined;
    if (flags.compat === 'rlscheduler') {
      for (const name of ['policy', 'reservation-depth', 'queue-depth', 'plot', 'release', 'no-release']) {
        const shown = name === 'release' || name === 'no-release' ? 'release / --no-release' : name;
        if (given(name)) throw invalid(`--${shown} does not apply to --compat rlscheduler`, 'the compatibility mode follows the paper\'s own greedy loop');
      }
    } else if (given('backfill') || given('no-backfill')) {
      throw invalid('--backfill applies to --compat rlscheduler only', 'iris policies choose backfilling with --policy (fcfs never backfills; easy, conservative and hybrid do)');
    }

    const progress = flags.compat === undefined ? this.progress() : undefined;
    const outcome = await runSimulation({
      trace: args.trace,
      procs: flags.procs,
      order,
      window,
      policy: flags.policy,
      queueDepth: flags['queue-depth'],
      reservationDepth: flags['reservation-depth'],
      plot: flags.plot,
      compat: flags.compat === 'rlscheduler' ? 'rlscheduler' : undefined,
      backfill: flags.backfill,
      release: flags.release,
      onProgress: progress?.update,
    }).finally(() => progress?.done());

    if (outcome.mode === 'rlscheduler') {
      if (!this.jsonEnabled()) this.print(renderCompat(outcome.info, outcome.result));
      return compatJson(outcome.info, outcome.result);
    }
    if (!this.jsonEnabled()) {
      this.print(renderSimulation(outcome.info, outcome.result));
      if (outcome.plot) this.print(`\nPlot written to ${outcome.plot}`);
    }
    return simulationJson(outcome.info, outcome.result);
  }

  private print(text: string): void {
    process.stdout.write(text + '\n');
  }

  /** A one-line progress counter on stderr, only for a person watching a terminal. */
  private progress(): { update: (p: SimProgress) => void; done: () => void } | undefined {
    if (this.jsonEnabled() || !process.stderr.isTTY) return undefined;
    let shown = false;
    return {
      update: (p) => {
        shown = true;
        process.stderr.write(`\rsimulating: ${p.finished}/${p.total} jobs finished, ${p.events} events`);
      },
      done: () => {
        if (shown) process.stderr.write('\r\x1b[K');
      },
    };
  }
}
