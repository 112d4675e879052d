/**
 * What a job's tasks run in and see, as `iris status` and `--dry-run` show it (api RunsIn): the
 * image and user (or host processes), the working directory, the mounts and the environment,
 * where a secret-looking variable shows its name only (the cluster never sends its value).
 */
import type { RunsIn } from '../api/types.js';
import { formatMount } from '../model/mounts.js';
import type { Field } from './table.js';

/** Shown for a value the cluster hid (model/secret-env.ts). */
export const HIDDEN_VALUE = '(hidden)';

/** `process on the host`, or `container of python:3.12 as 1000:1000`. */
export function describeRunsIn(runsIn: RunsIn): string {
  if (runsIn.image === null) return 'processes on the host';
  return `containers of ${runsIn.image} as ${runsIn.containerUser ?? "the config's container-user"}`;
}

/** `A=1 HF_TOKEN=(hidden)`, names in order; empty for none. */
export function formatEnv(env: RunsIn['env']): string {
  return Object.entries(env)
    .map(([name, value]) => `${name}=${value === null ? HIDDEN_VALUE : value}`)
    .join(' ');
}

/** The fields of `iris status` for it (values escaped by renderFields). */
export function runsInFields(runsIn: RunsIn): Field[] {
  const fields: Field[] = [['Runs as', describeRunsIn(runsIn)]];
  fields.push(['Workdir', runsIn.cwd ?? (runsIn.image === null ? '-' : "the image's own")]);
  if (runsIn.mounts.length > 0) fields.push(['Mounts', runsIn.mounts.map(formatMount).join(', ')]);
  const env = formatEnv(runsIn.env);
  if (env !== '') fields.push(['Env', env]);
  return fields;
}
