/**
 * The `dashboard:` section of the config file (docs/configuration.md, "dashboard"): where the
 * web dashboard (`iris dashboard`, src/server/dashboard) listens. Resolved into
 * IrisConfig.dashboard.
 *
 * Guarantees: `port` is 0..65535 (0, the default: a free port chosen when the dashboard first
 * starts, kept while the cluster runs); `listen` is a host name or IP address (default
 * 127.0.0.1). A non-loopback address is taken only when written here, and the cluster's log and
 * `iris dashboard` then warn that anyone who reaches it with a login link has the owner's rights.
 */
import { invalid } from '../../model/errors.js';
import { describeValue, parseWith } from '../../model/schema-errors.js';
import { isHost, notAHost } from '../../model/net-address.js';
import { object } from './fields.js';
import type { z } from 'zod';

/** The dashboard's default listen address: loopback only. */
export const DEFAULT_DASHBOARD_LISTEN = '127.0.0.1';

const port = parseWith<number, number | string>((value) => {
  const number = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 0 || number > 65535)
    throw invalid(
      `invalid dashboard.port ${describeValue(value)}: expected a TCP port from 0 to 65535`,
      'for example 8484, or 0 for a free port chosen when the dashboard starts',
    );
  return number;
});

const listen = parseWith<string, string>((value) => {
  const text = typeof value === 'string' ? value.trim().replace(/^\[(.*)\]$/, '$1') : value;
  if (typeof text !== 'string' || !isHost(text))
    throw invalid(`invalid dashboard.listen: ${notAHost(value)}`, 'for example 127.0.0.1 (the default)');
  return text;
});

export const dashboard = object(
  { port: port.nullish(), listen: listen.nullish() },
  'an object { port, listen }',
).nullish();

/** `dashboard` resolved. */
export interface DashboardConfig {
  /** 0: a free port, chosen when the dashboard first starts. */
  port: number;
  listen: string;
}

export function resolveDashboard(file: z.output<typeof dashboard>): DashboardConfig {
  return { port: file?.port ?? 0, listen: file?.listen ?? DEFAULT_DASHBOARD_LISTEN };
}
