import { Args, Flags } from '../oclif.js';
import { BaseCommand } from '../base-command.js';
import { invalid } from '../model/errors.js';
import { parseDefaultTimeLimit, parseWindow } from '../sim/load.js';
import { compatJson, simulationJson, type CompatJson, type SimulationJson } from '../sim/report.js';
import type { SimProgress } from '../sim/results.js';
import { ORDER_NAMES, parseOrder } from '../sim/scores.js';
import { runSimulation } from '../sim/service.js';
import * as policy from '../sim/policy.js';
import { DEFAULT_STUDY_SEED, type MergeStudyRow, runMergeStudy, runStudy, type StudyResult } from '../sim/study.js';
import { parseSeconds } from '../sim/workload-file.js';
import { DEFAULT_SIM_ELASTIC as E } from '../sim/elastic.js';
import { renderCompat, renderSimulation, renderStudy } from '../ui/simulation.js';
import type { SimPreemptionSettings } from '../sim/preemption.js';
import { DEFAULT_PREEMPTION_EXEMPT_MS, DEFAULT_PREEMPTION_GRACE_MS } from '../sim/policy.js';

const DEFAULT_GRACE_S = DEFAULT_PREEMPTION_GRACE_MS / 1000;
const DEFAULT_EXEMPT_S = DEFAULT_PREEMPTION_EXEMPT_MS / 1000;

export default class Simulate extends BaseCommand {
  static override summary = 'Replay a workload through the iris scheduler on a virtual clock.';
  static override description =
    'TRACE is an SWF trace (*.swf) run on a pool of --procs processors, or an iris workload file (*.yaml, *.yml, ' +
    '*.json) ' +
    'that declares workers, TPU slices and jobs with gangs and children (see docs/simulate.md). No processes run and ' +
    'nothing sleeps: the same scheduler code as the live cluster places jobs as virtual time jumps from event to ' +
    'event. ' +
    'Prints average wait, average bounded slowdown (threshold 10 s), utilization, makespan, total cost and the ' +
    'reuse-hit rate; ' +
    '--json adds per-job results. --study runs the seeded dispatch study (docs/simulate.md, "Dispatch study") ' +
    'through every ' +
    'placement mode and selection, without and with the elastic coordinator (--elastic for one run), and prints its ' +
    'table.';

  static override examples = [
    '<%= config.bin %> simulate ../shared/traces/lublin_256.swf --policy easy',
    '<%= config.bin %> simulate trace.swf --procs 128 --policy conservative --window 1981:1024 --plot run.svg',
    '<%= config.bin %> simulate workload.yaml --policy hybrid --reservation-depth 8 --json',
    '<%= config.bin %> simulate ../shared/traces/lublin_256.swf --compat rlscheduler --backfill --order sjf',
    '<%= config.bin %> simulate docs/examples/workload.yaml --placement first-fit --selection first-fit --cache-ttl ' +
      '30m',
    '<%= config.bin %> simulate ../shared/traces/lublin_256.swf --default-time-limit 24h',
    '<%= config.bin %> simulate --study --seed 1',
    '<%= config.bin %> simulate docs/examples/preemption.yaml --preemption --preempt-exempt 10m',
  ];

  static override args = {
    trace: Args.string({
      description: 'SWF trace (*.swf) or iris workload file (*.yaml, *.yml, *.json); none with --study.',
    }),
  };

  static override flags = {
    procs: Flags.integer({ summary: 'Processors of the SWF machine (default: the MaxProcs header).', min: 1 }),
    policy: Flags.string({
      summary: `Queue policy: ${policy.QUEUE_POLICIES.join(', ')}.`,
      default: policy.DEFAULT_QUEUE_OPTIONS.policy,
    }),
    'reservation-depth': Flags.integer({
      summary: 'Blocked jobs that get a reservation under hybrid.',
      min: 1,
      default: policy.DEFAULT_QUEUE_OPTIONS.reservationDepth,
    }),
    'queue-depth': Flags.integer({
      summary: 'Pending jobs one scheduling pass considers.',
      min: 1,
      default: policy.DEFAULT_QUEUE_OPTIONS.queueDepth,
    }),
    window: Flags.string({ summary: 'Only SWF jobs START..START+COUNT-1 (0-based), as START:COUNT.' }),
    order: Flags.string({ summary: `Queue order for simulation studies: ${ORDER_NAMES.join(', ')}.`, default: 'fcfs' }),
    plot: Flags.string({ summary: 'Write queue length and utilization over time to this SVG file.' }),
    compat: Flags.string({
      summary: 'Reproduce a published setup instead: rlscheduler (SC 2020, Table V).',
      options: ['rlscheduler'],
    }),
    release: Flags.boolean({
      summary:
        'A task that waits for its subtree (wait: true) releases its CPU while it waits; --no-release holds it, to ' +
        'compare.',
      allowNo: true,
      default: true,
    }),
    predict: Flags.boolean({
      summary:
        'Plan jobs without a time limit of their own (SWF field 9 is -1; no time-limit) with the mean of the ' +
        'last two runs of the same user and executable (SWF fields 12, 14) or name, as the live cluster does ' +
        '(default: on with --default-time-limit, else off).',
      allowNo: true,
    }),
    'default-time-limit': Flags.string({
      summary:
        "Give jobs without a time limit of their own this limit, as the live cluster's default (24h) does, " +
        'instead of their run time; they still run their run time unless the limit is shorter.',
    }),
    backfill: Flags.boolean({
      summary: 'With --compat rlscheduler: backfill behind the blocked head.',
      allowNo: true,
      default: false,
    }),
    placement: Flags.string({
      summary: `Placement mode: ${policy.PLACEMENT_MODES.join(', ')} (default ${policy.DEFAULT_PLACEMENT}).`,
    }),
    selection: Flags.string({
      summary: `Worker selection: ${policy.SELECTIONS.join(', ')} (default ${policy.DEFAULT_SELECTION}).`,
    }),
    'cache-ttl': Flags.string({
      summary: 'How long a worker stays warm for a model after a task using it ended (default 1h).',
    }),
    elastic: Flags.boolean({
      summary:
        `Run the elastic coordinator (the config defaults: idle-disable ${E.idleDisable}s, poll ${E.poll}` +
        `s, cooldown ${E.cooldown}s, ` +
        `min-active ${E.minActive}) and report worker-hours disabled.`,
    }),
    preemption: Flags.boolean({
      summary:
        'Let a blocked job stop running tasks of lower bands (workload `priority:`), as the live cluster does ' +
        '(config `preemption:`), and report the tasks stopped and the CPU-seconds lost.',
    }),
    'preempt-grace': Flags.string({
      summary:
        `With --preemption: how long a stopped task holds its capacity (default ${DEFAULT_GRACE_S}s, as ` +
        '`preemption.grace`).',
    }),
    'preempt-exempt': Flags.string({
      summary:
        `With --preemption: no task is stopped within this long of its start (default ${DEFAULT_EXEMPT_S}s, as ` +
        '`preemption.exempt`).',
    }),
    study: Flags.boolean({
      summary: 'Run the seeded dispatch study through every placement mode and selection (no TRACE).',
    }),
    seed: Flags.integer({ summary: `With --study: the workload's seed (default ${DEFAULT_STUDY_SEED}).`, min: 0 }),
  };

  /** Times in the report are virtual seconds, not instants: --json prints them as numbers. */
  protected override jsonInstants = false;

  async run(): Promise<SimulationJson | CompatJson | StudyResult> {
    const { args, flags, raw } = await this.parse(Simulate);
    const given = (name: string) => raw.some((token) => token.type === 'flag' && token.flag === name);
    if (flags.study) return this.study(args.trace, flags, given);
    if (given('seed'))
      throw invalid('--seed applies to --study only', 'run the dispatch study with: iris simulate --study --seed N');
    if (args.trace === undefined)
      throw invalid(
        'missing TRACE',
        'give an SWF trace or an iris workload file, or run the dispatch study with --study',
      );
    const order = parseOrder(flags.order);
    const placement = flags.placement !== undefined ? policy.parsePlacementMode(flags.placement) : undefined;
    const selection = flags.selection !== undefined ? policy.parseSelection(flags.selection) : undefined;
    const cacheTtl = flags['cache-ttl'] !== undefined ? parseCacheTtl(flags['cache-ttl']) : undefined;
    const window = flags.window !== undefined ? parseWindow(flags.window) : undefined;
    const defaultTimeLimit =
      flags['default-time-limit'] !== undefined ? parseDefaultTimeLimit(flags['default-time-limit']) : undefined;
    const preemption = flags.preemption ? preemptionSettings(flags) : undefined;
    for (const name of ['preempt-grace', 'preempt-exempt'])
      if (!flags.preemption && given(name))
        throw invalid(`--${name} applies with --preemption only`, `add --preemption to let jobs preempt`);
    if (flags.compat === 'rlscheduler') {
      for (const name of [
        'policy',
        'reservation-depth',
        'queue-depth',
        'plot',
        'release',
        'no-release',
        'placement',
        'selection',
        'cache-ttl',
        'elastic',
        'predict',
        'no-predict',
        'default-time-limit',
        'preemption',
        'preempt-grace',
        'preempt-exempt',
      ]) {
        const base = name.replace(/^no-/, '');
        const shown = base === 'release' || base === 'predict' ? `${base} / --no-${base}` : name;
        if (given(name))
          throw invalid(
            `--${shown} does not apply to --compat rlscheduler`,
            "the compatibility mode follows the paper's own greedy loop",
          );
      }
    } else if (given('backfill') || given('no-backfill')) {
      throw invalid(
        '--backfill applies to --compat rlscheduler only',
        'iris policies choose backfilling with --policy (fcfs never backfills; easy, conservative and hybrid do)',
      );
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
      predict: flags.predict,
      ...(defaultTimeLimit !== undefined ? { defaultTimeLimit } : {}),
      placement,
      selection,
      cacheTtl,
      elastic: flags.elastic,
      ...(preemption ? { preemption } : {}),
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

  /** `--study`: the dispatch study's table; flags that choose a trace or one placement do not apply. */
  private study(
    trace: string | undefined,
    flags: { seed?: number; policy: string; 'queue-depth': number; 'reservation-depth': number },
    given: (name: string) => boolean,
  ): StudyResult & { merging: MergeStudyRow[] } {
    if (trace !== undefined)
      throw invalid(
        `--study generates its own workload; remove the trace "${trace}"`,
        'run iris simulate --study [--seed N]',
      );
    for (const name of [
      'procs',
      'window',
      'order',
      'plot',
      'compat',
      'release',
      'no-release',
      'backfill',
      'no-backfill',
      'placement',
      'selection',
      'cache-ttl',
      'elastic',
      'predict',
      'no-predict',
      'default-time-limit',
      'preemption',
      'preempt-grace',
      'preempt-exempt',
    ]) {
      const shown = name.startsWith('no-') ? name.slice(3) : name;
      if (given(name))
        throw invalid(
          `--${shown} does not apply to --study`,
          'the study runs every placement mode and selection, with and without the elastic coordinator, on its own ' +
            'workload; only --seed, --policy, --queue-depth and --reservation-depth apply',
        );
    }
    const options = {
      seed: flags.seed,
      policy: policy.parsePolicy(flags.policy),
      queueDepth: flags['queue-depth'],
      reservationDepth: flags['reservation-depth'],
    };
    const result = { ...runStudy(options), merging: runMergeStudy(options).rows };
    if (!this.jsonEnabled()) this.print(renderStudy(result));
    return result;
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

/** `--cache-ttl`: a duration such as 30m or 3600 (seconds), more than 0. */
/** --preempt-grace and --preempt-exempt as seconds (0 or more), the config's defaults when not given. */
function preemptionSettings(flags: { 'preempt-grace'?: string; 'preempt-exempt'?: string }): SimPreemptionSettings {
  const read = (name: 'preempt-grace' | 'preempt-exempt', fallback: number): number => {
    const text = flags[name];
    if (text === undefined) return fallback;
    const seconds = parseSeconds(text);
    if (!(seconds >= 0)) throw invalid(`invalid --${name} "${text}": expected a duration such as 30s or 2m`);
    return seconds;
  };
  return { grace: read('preempt-grace', DEFAULT_GRACE_S), exempt: read('preempt-exempt', DEFAULT_EXEMPT_S) };
}

function parseCacheTtl(text: string): number {
  const seconds = parseSeconds(text);
  if (!(seconds > 0)) throw invalid(`invalid --cache-ttl "${text}": expected a duration above 0 such as 30m or 1h`);
  return seconds;
}
