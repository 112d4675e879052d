/**
 * Turns the raw object read from a config file into an IrisConfig, with one zod schema per
 * file (docs/configuration.md). Pure apart from the machine probe (CPUs, memory, GPUs, TPU
 * device files), which callers may inject. Every error is an IrisError ('invalid_argument')
 * whose message starts with the file path and the offending key path:
 * `/proj/.irisrc.yaml: workers[1].memory: invalid memory "lots": ...` (src/model/schema-errors.ts).
 */
import { z } from 'zod';
import { describeValue, parseOrThrow } from '../../model/schema-errors.js';
import {
  DEFAULT_CACHE_TTL_MS,
  DEFAULT_DEADLOCK_GRACE_MS,
  DEFAULT_KEEP_FINISHED,
  DEFAULT_LOG_LIMIT_BYTES,
  DEFAULT_MAX_PREEMPTIONS,
  DEFAULT_RETENTION_MS,
  DEFAULT_STOP_GRACE_MS,
  DEFAULT_TIME_LIMIT_MS,
  machineWorker,
} from '../defaults.js';
import { hostProbe, type MachineProbe } from '../detect.js';
import type { IrisConfig } from '../types.js';
import { byteSize, duration, fail, nonNegativeInteger, resolving } from './fields.js';
import {
  cacheTtl,
  containerUser,
  elastic,
  home,
  image,
  mounts,
  network,
  placementScoring,
  placementScoringKeys,
  queueInput,
  resolveQueueBlock,
  preemption,
  productionUsers,
  quotas,
  retention,
  retryBackoff,
  runtime,
  runtimeKind,
  stopGrace,
  timeLimit,
} from './settings.js';
import { joinWorkers, workerSchemas } from './workers.js';
import { metrics, resolveMetrics } from './metrics.js';
import { backend } from './backend.js';
import { taskDoor } from './task-door.js';
import { defaultQueueKey, queues, resolveQueues } from './queues.js';
import { connections } from './connections.js';
import { dashboard, resolveDashboard } from './dashboard.js';

/** The schema of one config file read from `source`; TPU chip paths not listed come from `probe`. */
export function configSchema(source: string, probe: MachineProbe) {
  const { workers, slices } = workerSchemas(probe);
  return z
    .strictObject(
      {
        home: home(source).nullish(),
        'stop-grace': stopGrace.nullish(),
        'deadlock-grace': duration().nullish(),
        'max-preemptions': nonNegativeInteger('max-preemptions').nullish(),
        'time-limit': timeLimit.nullish(),
        'retry-backoff': retryBackoff.nullish(),
        'log-limit': byteSize('log-limit').nullish(),
        retention: retention.optional(),
        'keep-finished': nonNegativeInteger('keep-finished').nullish(),
        queue: queueInput,
        queues,
        'default-queue': defaultQueueKey,
        runtime: runtimeKind.nullish(),
        image: image.nullish(),
        network: network.nullish(),
        'container-user': containerUser.nullish(),
        'container-process-children': z.boolean().nullish(),
        workspace: z.boolean().nullish(),
        mounts: mounts.nullish(),
        workers: workers.nullish(),
        slices: slices.nullish(),
        quotas,
        'production-users': productionUsers,
        preemption,
        'task-door': taskDoor,
        connections,
        placement: z
          .strictObject({
            stickiness: z.boolean().nullish(),
            'cache-ttl': cacheTtl.nullish(),
            ...placementScoringKeys,
          })
          .nullish(),
        metrics,
        dashboard,
        elastic,
        backend: backend(source),
      },
      {
        error: (iss) =>
          iss.code === 'invalid_type'
            ? `the configuration must be an object (a YAML mapping), got ${describeValue(iss.input)}`
            : undefined,
      },
    )
    .transform(
      resolving((file, ctx): IrisConfig => {
        if (file.backend?.kind === 'kubernetes' && (file.mounts ?? []).length > 0) {
          fail(
            ctx,
            ['mounts'],
            'the kubernetes backend does not mount host directories into Pods',
            'remove mounts, or use the local backend',
          );
        }
        return {
          source,
          home: file.home ?? null,
          workers:
            file.workers === undefined && file.slices === undefined
              ? [machineWorker(probe)]
              : joinWorkers(ctx, file.workers ?? null, file.slices ?? null, file.workers !== undefined),
          quotas: file.quotas,
          productionUsers: file['production-users'] ?? [],
          preemption: file.preemption,
          taskDoor: file['task-door'],
          connections: file.connections,
          defaults: {
            maxPreemptions: file['max-preemptions'] ?? DEFAULT_MAX_PREEMPTIONS,
            stopGraceMs: file['stop-grace'] ?? DEFAULT_STOP_GRACE_MS,
            timeLimitMs: file['time-limit'] ?? DEFAULT_TIME_LIMIT_MS,
            retryBackoffMs: file['retry-backoff'] ?? null,
          },
          queue: resolveQueueBlock(ctx, file.queue, ['queue']),
          queues: resolveQueues(ctx, file.queues, file['default-queue'], file.queue != null),
          runtime: runtime(ctx, file),
          deadlockGraceMs: file['deadlock-grace'] ?? DEFAULT_DEADLOCK_GRACE_MS,
          logLimitBytes: file['log-limit'] ?? DEFAULT_LOG_LIMIT_BYTES,
          retentionMs: file.retention === undefined ? DEFAULT_RETENTION_MS : file.retention,
          keepFinished: file['keep-finished'] ?? DEFAULT_KEEP_FINISHED,
          placement: {
            stickiness: file.placement?.stickiness ?? true,
            cacheTtlMs: file.placement?.['cache-ttl'] ?? DEFAULT_CACHE_TTL_MS,
            ...placementScoring(file.placement),
          },
          metrics: resolveMetrics(file.metrics),
          dashboard: resolveDashboard(file.dashboard),
          elastic: file.elastic,
          backend: file.backend,
        };
      }),
    );
}

/**
 * Validate a raw configuration object (as read from `source`) and resolve it. `undefined` or
 * `null` (an empty file) gives the defaults. Throws IrisError('invalid_argument') naming
 * `source` and the offending key.
 */
export function validateConfig(raw: unknown, source: string, probe: MachineProbe = hostProbe): IrisConfig {
  const schema = configSchema(source, probe);
  return parseOrThrow(schema, raw ?? {}, { file: source });
}

/** The configuration used when no file is found: what an empty file gives, with no source. */
export function defaultConfig(probe: MachineProbe = hostProbe): IrisConfig {
  return { ...validateConfig({}, '(built-in defaults)', probe), source: null };
}

/** What `iris.config.ts` exports by default (and what `.irisrc.yaml` holds). */
export type IrisConfigFile = z.input<ReturnType<typeof configSchema>>;
/** One entry of `workers:`; `count` expands it into a pool `name-0` … `name-(count-1)`. */
export type IrisWorkerFile = NonNullable<IrisConfigFile['workers']>[number];
/** A whole TPU slice: one virtual worker per host of the variant. */
export type IrisSliceFile = NonNullable<IrisConfigFile['slices']>[number];
/** One user's limits under `quotas:`. */
export type IrisQuotaFile = NonNullable<NonNullable<IrisConfigFile['quotas']>[string]>;
