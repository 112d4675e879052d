/**
 * The band a job may have (docs/priorities.md, "Bands"): the one rule for a submission and for
 * `iris update --priority`.
 *
 * - A job that asks for none gets its parent's band, else `interactive`.
 * - A child may ask for its parent's band or a lower one, never a higher one (forbidden, exit 4).
 * - `production` is the owner's: the owner may give it to their own jobs, and to another user's
 *   only when the config grants it to that user (`production-users`). A task's child inherits it
 *   from a production parent without a grant; a job named under a production job from outside
 *   (`--name /prod/x`) inherits it only where granted, else it is `interactive`.
 * - A task may never raise a job above its own job's band (`updateCeiling`): not its children,
 *   not its own job.
 */
import { BANDS, DEFAULT_BAND, bandAbove, isBand, type Band } from '../../model/band.js';
import { fieldError, given } from './values.js';

/** Who may give which band: the owner's user name and the users the config grants production. */
export interface BandGrants {
  /** The cluster owner's user name. */
  owner: string;
  /** The config's `production-users`; absent: none besides the owner. */
  productionUsers?: readonly string[];
}

/** The ceiling a job's band is held under: its parent job's band, when it has a parent. */
export interface BandCeiling {
  parent: string;
  band: Band;
  /** The parent is the submitting task's job: its children inherit production without a grant. */
  task?: boolean;
}

/** A request's `priority`, checked: a band, or null when not given. */
export function parseBand(value: string | null | undefined): Band | null {
  if (!given(value)) return null;
  if (isBand(value)) return value;
  throw fieldError('priority', `invalid priority ${JSON.stringify(value)}: expected one of ${BANDS.join(', ')}`);
}

/**
 * The band `user`'s job gets when it asks for `requested` (null: none) under `ceiling` (its
 * parent's band; null: a root job). Throws IrisError `forbidden` when it may not have it.
 */
export function allowedBand(
  requested: Band | null,
  user: string,
  ceiling: BandCeiling | null,
  grants: BandGrants,
): Band {
  const granted = user === grants.owner || grants.productionUsers?.includes(user) === true;
  if (ceiling && requested !== null && bandAbove(requested, ceiling.band)) {
    throw fieldError(
      'priority',
      `priority ${requested}: a child job may not be in a higher band than its parent ${ceiling.parent} ` +
        `(${ceiling.band})`,
      `leave --priority out to inherit ${ceiling.band}, or ask for a lower band`,
      'forbidden',
    );
  }
  if (requested === null && ceiling) {
    // Inherited: from a task always; from a job named from outside only where production is granted.
    return ceiling.band === 'production' && !ceiling.task && !granted ? DEFAULT_BAND : ceiling.band;
  }
  const band = requested ?? DEFAULT_BAND;
  if (band === 'production' && !granted && !(ceiling?.task && ceiling.band === 'production')) {
    throw fieldError(
      'priority',
      `priority production is not granted to user ${user}`,
      `the cluster's owner grants it in the config: production-users: [${user}]`,
      'forbidden',
    );
  }
  return band;
}

/**
 * The ceiling of `iris update`: the job's live parent's band, and for a task caller also its own
 * job's band (a task never raises a job above the band it runs in, its own job included).
 */
export function updateCeiling(
  parent: { name: string; band: Band } | null,
  caller: { job: string; band?: Band } | null,
): BandCeiling | null {
  const own = caller ? { parent: caller.job, band: caller.band ?? DEFAULT_BAND, task: true } : null;
  const above = parent ? { parent: parent.name, band: parent.band } : null;
  if (!own) return above;
  if (!above) return own;
  return bandAbove(own.band, above.band) ? above : own;
}
