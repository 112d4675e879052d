/**
 * Cluster-wide settings of the config file: home, quotas, job defaults (`stop-grace`,
 * `max-preemptions`, `time-limit`), the queue policy and the task runtime (`runtime`, `image`,
 * `network`, `container-user`, `container-process-children`). Queue policies, defaults and limits are the scheduler's
 * own
 * (src/cluster/scheduler/queue/options.ts); the config only names them.
 */
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import {
  DEFAULT_QUEUE_OPTIONS,
  MAX_QUEUE_DEPTH,
  MAX_RESERVATION_DEPTH,
  QUEUE_POLICIES,
} from '../../cluster/scheduler/queue/options.js';
import {
  DEFAULT_PLACEMENT_OPTIONS,
  MAX_JITTER,
  PLACEMENT_MODES,
  SELECTIONS,
  type PlacementOptions,
} from '../../cluster/scheduler/placement/modes.js';
import { DEFAULT_MERGE_OPTIONS, MAX_MERGE_BATCH } from '../../cluster/scheduler/placement/merge.js';
import { formatDuration } from '../../model/duration.js';
import { invalid } from '../../model/errors.js';
import { CONTAINER_NETWORKS, checkContainerUser, checkImageReference } from '../../model/image.js';
import { parseMount, type Mount } from '../../model/mounts.js';
import { describeValue, parseWith } from '../../model/schema-errors.js';
import { USER_NAME, USER_NAME_HINT } from '../../model/names.js';
import type { Quota } from '../../model/types.js';
import { DEFAULT_RUNTIME } from '../defaults.js';
import { DEFAULT_ELASTIC, type ElasticSettings } from '../../cluster/scheduler/elastic.js';
import { DEFAULT_PREEMPTION_EXEMPT_MS, DEFAULT_PREEMPTION_GRACE_MS } from '../../cluster/scheduler/preemption/plan.js';
import {
  boolean,
  cpu,
  duration,
  durationMs,
  fail,
  list,
  map,
  memory,
  nonNegativeInteger,
  object,
  oneOf,
  positiveInteger,
  positiveNumber,
  resolving,
  text,
} from './fields.js';

export const RUNTIMES = ['process', 'docker'] as const;
export const NETWORKS = CONTAINER_NETWORKS;

function expandHome(value: string): string {
  if (value === '~') return os.homedir();
  if (value.startsWith('~/')) return path.join(os.homedir(), value.slice(2));
  return value;
}

/** `home:` with `~` expanded, relative to the config file when that path is absolute. */
export function home(source: string) {
  return parseWith<string, string>((value) => {
    if (typeof value !== 'string' || value.trim() === '')
      throw invalid(`invalid home ${describeValue(value)}: expected a directory path`);
    const expanded = expandHome(value.trim());
    if (path.isAbsolute(expanded)) return path.normalize(expanded);
    return path.isAbsolute(source) ? path.resolve(path.dirname(source), expanded) : expanded;
  });
}

const quota = object(
  {
    cpu: cpu.nullish(),
    memory: memory.nullish(),
    accelerators: positiveInteger('accelerators').nullish(),
    'pending-tasks': positiveInteger('pending-tasks').nullish(),
    weight: positiveNumber('weight', '2').nullish(),
    hard: boolean('hard').nullish(),
  },
  'an object such as { cpu: 8, memory: 32GiB, accelerators: 8, pending-tasks: 100, weight: 1, hard: false }',
)
  .nullish()
  .transform(
    (q): Quota => ({
      maxRunningCpuMillis: q?.cpu ?? null,
      maxRunningMemoryBytes: q?.memory ?? null,
      maxRunningAccelerators: q?.accelerators ?? null,
      maxPendingTasks: q?.['pending-tasks'] ?? null,
      weight: q?.weight ?? 1,
      hard: q?.hard ?? false,
    }),
  );

/** `quotas:` user -> limits; a limit left out (or null) is no limit. */
export const quotas = map(quota, 'an object of user: { cpu, memory, accelerators, pending-tasks, weight, hard }')
  .nullish()
  .transform(
    resolving((users, ctx) => {
      const out = new Map<string, Quota>();
      for (const [user, limits] of Object.entries(users ?? {})) {
        if (!USER_NAME.test(user)) fail(ctx, [user], `invalid user name ${JSON.stringify(user)}`, USER_NAME_HINT);
        out.set(user, limits);
      }
      return out;
    }),
  );

/** `retry-backoff:` a duration longer than 0: the default `--retry-backoff` of a job. */
export const retryBackoff = parseWith<number, string | number>((value) => {
  const ms = durationMs(value);
  if (ms <= 0)
    throw invalid(
      `invalid retry-backoff ${describeValue(value)}: must be longer than 0`,
      'leave it out to retry failed tasks at once, or for example retry-backoff: 10s',
    );
  return ms;
});

/** `time-limit:` a duration longer than 0. */
export const timeLimit = parseWith<number, string | number>((value) => {
  const ms = durationMs(value);
  if (ms <= 0)
    throw invalid(`invalid time-limit ${describeValue(value)}: must be longer than 0`, 'for example time-limit: 24h');
  return ms;
});

/** `retention:` a duration longer than 0, or `never` (null: finished runs are kept until pruned by hand). */
export const retention = parseWith<number | null, string | number>((value) => {
  if (value === 'never') return null;
  const ms = durationMs(value, 'retention');
  if (ms <= 0)
    throw invalid(
      `invalid retention ${describeValue(value)}: must be longer than 0, or never`,
      'for example retention: 7d',
    );
  return ms;
});

/** The longest `stop-grace`: a task that ignores SIGTERM is killed after at most a day. */
export const MAX_STOP_GRACE_MS = 86_400_000;

/** `stop-grace:` a duration of at most a day (0: SIGKILL at once). */
/**
 * `placement.cache-ttl`: how long a worker keeps a context-reuse hint after a task using the key ended there; a
 * duration > 0.
 */
export const cacheTtl = parseWith<number, string | number>((value) => {
  const ms = durationMs(value, 'placement.cache-ttl');
  if (ms <= 0)
    throw invalid(
      `invalid placement.cache-ttl ${describeValue(value)}: must be longer than 0`,
      'for example cache-ttl: 1h',
    );
  return ms;
});

export const stopGrace = parseWith<number, string | number>((value) => {
  const ms = durationMs(value);
  if (ms > MAX_STOP_GRACE_MS) {
    throw invalid(
      `invalid stop-grace ${describeValue(value)}: at most ${formatDuration(MAX_STOP_GRACE_MS)}`,
      'the time a stopping task gets between SIGTERM and SIGKILL, for example stop-grace: 30s',
    );
  }
  return ms;
});

function atMost(schema: z.ZodType<number, number>, what: string, max: number) {
  return schema.transform(
    resolving((value: number) => {
      if (value > max) throw invalid(`invalid ${what} ${value}: at most ${max}`);
      return value;
    }),
  );
}

/** The keys of a queue policy block (`queue:` and each entry of `queues:`). */
export const queueKeys = {
  policy: oneOf(QUEUE_POLICIES, 'queue policy').nullish(),
  depth: atMost(positiveInteger('queue depth'), 'queue depth', MAX_QUEUE_DEPTH).nullish(),
  'reservation-depth': atMost(
    nonNegativeInteger('reservation-depth'),
    'reservation-depth',
    MAX_RESERVATION_DEPTH,
  ).nullish(),
  'max-reservation-depth': atMost(
    nonNegativeInteger('max-reservation-depth'),
    'max-reservation-depth',
    MAX_RESERVATION_DEPTH,
  ).nullish(),
};

type QueueBlockInput = {
  policy?: (typeof QUEUE_POLICIES)[number] | null | undefined;
  depth?: number | null | undefined;
  'reservation-depth'?: number | null | undefined;
  'max-reservation-depth'?: number | null | undefined;
};

export interface ResolvedQueueBlock {
  policy: (typeof QUEUE_POLICIES)[number];
  depth: number;
  reservationDepth: number;
  maxReservationDepth: number;
}

/** A policy block with its defaults; reservation-depth defaults to 64 or max-reservation-depth, whichever is lower. */
export function resolveQueueBlock(
  ctx: z.core.$RefinementCtx,
  q: QueueBlockInput | null | undefined,
  at: readonly string[] = [],
): ResolvedQueueBlock {
  const maxReservationDepth: number = q?.['max-reservation-depth'] ?? MAX_RESERVATION_DEPTH;
  const reservationDepth: number =
    q?.['reservation-depth'] ?? Math.min(DEFAULT_QUEUE_OPTIONS.reservationDepth, maxReservationDepth);
  if (reservationDepth > maxReservationDepth) {
    fail(
      ctx,
      [...at, 'reservation-depth'],
      `reservation-depth ${reservationDepth} is larger than max-reservation-depth ${maxReservationDepth}`,
      'lower reservation-depth or raise max-reservation-depth',
    );
  }
  return {
    policy: q?.policy ?? DEFAULT_QUEUE_OPTIONS.policy,
    depth: q?.depth ?? DEFAULT_QUEUE_OPTIONS.queueDepth,
    reservationDepth,
    maxReservationDepth,
  };
}

/** `queue:` as written (resolveQueueBlock resolves it, beside `queues:`). */
export const queueInput = object(queueKeys, 'an object such as { policy: easy, depth: 32 }').nullish();

/** `queue:` policy and depths (resolveQueueBlock). */
export const queue = queueInput.transform(resolving((q, ctx) => resolveQueueBlock(ctx, q)));

export const runtimeKind = oneOf(RUNTIMES, 'runtime');
export const network = oneOf(NETWORKS, 'network');
export const image = text('image').transform(resolving((value: string) => checkImageReference(value)));
export const containerUser = text('container-user').transform(resolving((value: string) => checkContainerUser(value)));
/** One entry of `mounts:`, `SRC:DST[:ro]` (model/mounts.ts); its source is resolved at each submit. */
export const mounts = list(
  text('mount').transform(resolving((value: string) => parseMount(value, 'mount'))),
  'SRC:DST[:ro] strings',
);

export type RuntimeKind = (typeof RUNTIMES)[number];
export type ContainerNetwork = (typeof NETWORKS)[number];

export interface RuntimeConfig {
  /** How jobs without `--image` run: local processes, or containers of `image`. */
  kind: RuntimeKind;
  /** Default image (set exactly when kind is docker). */
  image: string | null;
  /** Network of containers whose job names none; null: bridge, and host for TPU jobs. */
  network: ContainerNetwork | null;
  /** User of containers whose job names none (`UID[:GID]`), 65534:65534 unless configured. */
  containerUser: string;
  /**
   * `container-process-children`: a task in a container may submit children that run as host
   * processes (`--runtime process`); default false (refused, src/cluster/admission/isolation.ts).
   */
  containerProcessChildren: boolean;
  /**
   * `workspace`: mount the submit directory into the owner's container jobs (default true;
   * src/cluster/admission/workspace.ts).
   */
  workspace: boolean;
  /** `mounts`: host paths in every container job of the owner (`SRC:DST[:ro]`; none by default). */
  mounts: Mount[];
}

/** `runtime`, `image` and `network` together: docker needs an image, and an image needs docker. */
export function runtime(
  ctx: z.core.$RefinementCtx,
  given: {
    runtime?: RuntimeKind | null;
    image?: string | null;
    network?: ContainerNetwork | null;
    'container-user'?: string | null;
    'container-process-children'?: boolean | null;
    workspace?: boolean | null;
    mounts?: Mount[] | null;
  },
): RuntimeConfig {
  const kind = given.runtime ?? DEFAULT_RUNTIME.kind;
  const image = given.image ?? null;
  if (kind === 'docker' && image === null) {
    fail(
      ctx,
      ['runtime'],
      'runtime: docker needs a default image',
      'add image: IMAGE (used by jobs submitted without --image), or use runtime: process',
    );
  }
  if (kind === 'process' && image !== null) {
    fail(
      ctx,
      ['image'],
      'a default image is only used with runtime: docker',
      'add runtime: docker, or give the image per job with --image',
    );
  }
  return {
    kind,
    image,
    network: given.network ?? DEFAULT_RUNTIME.network,
    containerUser: given['container-user'] ?? DEFAULT_RUNTIME.containerUser,
    containerProcessChildren: given['container-process-children'] ?? DEFAULT_RUNTIME.containerProcessChildren,
    workspace: given.workspace ?? true,
    mounts: given.mounts ?? [],
  };
}

/** `elastic.poll:` a duration longer than 0 (the coordinator's loop interval). */
const elasticPoll = parseWith<number, string | number>((value) => {
  const ms = durationMs(value, 'poll');
  if (ms <= 0)
    throw invalid(
      `invalid poll ${describeValue(value)}: must be longer than 0`,
      'for example poll: 30s (sub-second values such as 200ms are allowed)',
    );
  return ms;
});

/** The elastic coordinator's settings as the controller takes them; null: it does not run. */
export type ElasticConfig = ElasticSettings & { pollMs: number };

/**
 * `elastic:` the elastic coordinator (docs/configuration.md, "Elastic workers"). Off unless
 * `enabled: true`; every other key has the default of DEFAULT_ELASTIC. Durations take the model's
 * parser, so sub-second values (`200ms`) work.
 */
export const elastic = object(
  {
    enabled: z.boolean().nullish(),
    'idle-disable': duration('idle-disable').nullish(),
    'queue-max': nonNegativeInteger('queue-max').nullish(),
    'enable-threshold': nonNegativeInteger('enable-threshold').nullish(),
    'min-active': nonNegativeInteger('min-active').nullish(),
    poll: elasticPoll.nullish(),
    cooldown: duration('cooldown').nullish(),
  },
  'an object such as { enabled: true, idle-disable: 60s, min-active: 1 }',
)
  .nullish()
  .transform((e): ElasticConfig | null =>
    e?.enabled
      ? {
          idleDisableMs: e['idle-disable'] ?? DEFAULT_ELASTIC.idleDisableMs,
          queueMax: e['queue-max'] ?? DEFAULT_ELASTIC.queueMax,
          enableThreshold: e['enable-threshold'] ?? DEFAULT_ELASTIC.enableThreshold,
          minActive: e['min-active'] ?? DEFAULT_ELASTIC.minActive,
          pollMs: e.poll ?? DEFAULT_ELASTIC.pollMs,
          cooldownMs: e.cooldown ?? DEFAULT_ELASTIC.cooldownMs,
        }
      : null,
  );
// ---- placement scoring (issue 15 §2–3, issue 31 §3): mode, selection, lambda, jitter, keep-accelerators
// Names, defaults and limits are the scheduler's (src/cluster/scheduler/placement/modes.ts).

/** A number from `min` to `max` (`what` names it in the message). */
function numberIn(what: string, min: number, max: number, hint: string) {
  return parseWith<number, number>((value) => {
    if (typeof value !== 'number' || Number.isNaN(value) || value < min || value > max) {
      throw invalid(`invalid ${what} ${describeValue(value)}: expected a number from ${min} to ${max}`, hint);
    }
    return value;
  });
}

const lambdaValue = (category: string) =>
  numberIn(
    `lambda ${category}`,
    0,
    1,
    'λ weighs throughput (1) against cost per hour (0); for example lambda: { training: 0.8 }',
  );

/** The scoring keys of `placement:` (stickiness and cache-ttl are defined beside them). */
export const placementScoringKeys = {
  mode: oneOf(PLACEMENT_MODES, 'placement mode').nullish(),
  selection: oneOf(SELECTIONS, 'placement selection').nullish(),
  lambda: object(
    {
      training: lambdaValue('training').nullish(),
      inference: lambdaValue('inference').nullish(),
      other: lambdaValue('other').nullish(),
    },
    'an object such as { training: 0.8, inference: 0.4, other: 0.5 }',
  ).nullish(),
  jitter: numberIn(
    'jitter',
    0,
    MAX_JITTER,
    'above 0: identical workers rotate by task, for example jitter: 0.001',
  ).nullish(),
  /** Issue 31 §3: false lets jobs that ask for no GPU or TPU score accelerator workers like any other. */
  'keep-accelerators': z.boolean().nullish(),
  /** Issue 33 §2: task merging (src/cluster/scheduler/placement/merge.ts), under the adaptive mode. */
  merge: object(
    {
      enabled: z.boolean().nullish(),
      'max-batch': atMost(
        positiveInteger('placement.merge.max-batch'),
        'placement.merge.max-batch',
        MAX_MERGE_BATCH,
      ).nullish(),
    },
    'an object such as { enabled: true, max-batch: 4 }',
  ).nullish(),
};

type ScoringFile = {
  mode?: PlacementOptions['mode'] | null;
  selection?: PlacementOptions['selection'] | null;
  lambda?: { training?: number | null; inference?: number | null; other?: number | null } | null;
  jitter?: number | null;
  'keep-accelerators'?: boolean | null;
  merge?: { enabled?: boolean | null; 'max-batch'?: number | null } | null;
};

/** Resolved scoring settings of `placement:` with the defaults filled in. */
export function placementScoring(file: ScoringFile | null | undefined): PlacementOptions {
  const d = DEFAULT_PLACEMENT_OPTIONS;
  return {
    mode: file?.mode ?? d.mode,
    selection: file?.selection ?? d.selection,
    lambda: {
      training: file?.lambda?.training ?? d.lambda.training,
      inference: file?.lambda?.inference ?? d.lambda.inference,
      other: file?.lambda?.other ?? d.lambda.other,
    },
    jitter: file?.jitter ?? d.jitter,
    keepAccelerators: file?.['keep-accelerators'] ?? d.keepAccelerators,
    merge: {
      enabled: file?.merge?.enabled ?? DEFAULT_MERGE_OPTIONS.enabled,
      maxBatch: file?.merge?.['max-batch'] ?? DEFAULT_MERGE_OPTIONS.maxBatch,
    },
  };
}

/** `production-users:` the users besides the owner who may submit production jobs (docs/priorities.md). */
export const productionUsers = list(
  text('user name').transform(
    resolving((user, ctx) => {
      if (!USER_NAME.test(user)) fail(ctx, [], `invalid user name ${JSON.stringify(user)}`, USER_NAME_HINT);
      return user;
    }),
  ),
  'user names',
).nullish();

/** What `preemption:` resolves to (docs/priorities.md, "Preemption"). */
export interface PreemptionConfig {
  /** False: no job stops another (bands still order the queue). Default true. */
  enabled: boolean;
  /** Between a victim's SIGTERM and its SIGKILL. Default 30 s. */
  graceMs: number;
  /** A task is not preempted within this long of its start. Default 60 s. */
  exemptMs: number;
}

export const DEFAULT_PREEMPTION: PreemptionConfig = {
  enabled: true,
  graceMs: DEFAULT_PREEMPTION_GRACE_MS,
  exemptMs: DEFAULT_PREEMPTION_EXEMPT_MS,
};

/** `preemption: { enabled, grace, exempt }`. */
export const preemption = object(
  { enabled: z.boolean().nullish(), grace: stopGrace.nullish(), exempt: duration('exempt').nullish() },
  'an object such as { enabled: true, grace: 30s, exempt: 60s }',
)
  .nullish()
  .transform(
    (p): PreemptionConfig => ({
      enabled: p?.enabled ?? DEFAULT_PREEMPTION.enabled,
      graceMs: p?.grace ?? DEFAULT_PREEMPTION.graceMs,
      exemptMs: p?.exempt ?? DEFAULT_PREEMPTION.exemptMs,
    }),
  );
