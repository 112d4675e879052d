/**
 * E2E: the `dashboard:` config section. `iris config` lists dashboard.port and dashboard.listen
 * (defaults 0 and 127.0.0.1); a dashboard on a non-loopback address written in the config is
 * warned about by `iris dashboard` (stderr and --json) and in the cluster's log, and still
 * refuses a Host header that names no address of it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeRun, withCluster } from './harness.js';
import { request } from './dashboard-http.js';

interface Setting {
  key: string;
  value: string;
  source: string;
}

describe('dashboard config', () => {
  describe('defaults', () => {
    const c = withCluster({ noStart: true });
    it('iris config lists dashboard.port 0 and dashboard.listen 127.0.0.1', async () => {
      const view = await c.json<{ settings: Setting[] }>(['config']);
      const byKey = new Map(view.settings.map((s) => [s.key, s]));
      expect(byKey.get('dashboard.port')).toMatchObject({ value: '0', source: 'default' });
      expect(byKey.get('dashboard.listen')).toMatchObject({ value: '127.0.0.1', source: 'default' });
    });
  });

  describe('a non-loopback address', () => {
    const c = withCluster(`
dashboard:
  listen: 0.0.0.0
`);
    it('is warned about by iris dashboard and in the cluster log', async () => {
      const r = await c.iris(['dashboard', '--url']);
      expect(r.code, describeRun(['dashboard', '--url'], r)).toBe(0);
      expect(r.stderr).toMatch(/warning: the dashboard listens on 0\.0\.0\.0:\d+, not a loopback address/);
      const info = await c.json<{ warning?: string; loginUrl: string }>(['dashboard']);
      expect(info.warning).toMatch(/owner's rights/);
      const log = readFileSync(path.join(c.home, 'cluster.log'), 'utf8');
      expect(log).toMatch(/warning: the dashboard listens on 0\.0\.0\.0/);
      const port = new URL(info.loginUrl).port;
      const rebound = await request(info.loginUrl, { headers: { host: `evil.test:${port}` } });
      expect(rebound.status).toBe(403);
      expect((await request(info.loginUrl)).status).toBe(303);
    });
  });
});
