/**
 * E2E: who gets a dashboard, and the dashboard of a stopped cluster. A task (IRIS_TASK_TOKEN)
 * cannot get a login link (exit 4, owner only). With the cluster stopped, `iris dashboard --url
 * --json` starts no cluster: it serves the saved state read-only in the foreground (mode
 * offline), the saved jobs are listed through the same dashboard, a cancel answers unavailable,
 * and SIGTERM ends it; with no saved state at all it exits 6 and serves nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeRun, runIris, withCluster } from './harness.js';
import { login, pagePost, request, serveOffline } from './dashboard-http.js';

const CONFIG = `
workers:
  - name: w0
    cpu: 2
    memory: 2GiB
`;

describe('iris dashboard: owner only, and the saved state of a stopped cluster', () => {
  const c = withCluster(CONFIG);

  it('a task cannot get a dashboard link (owner only, exit 4)', async () => {
    const r = await c.iris(
      ['run', '--name', 'peek', '--cpu', '0.1', '--', 'sh', '-c', 'iris dashboard --url; echo "exit=$?"'],
      { timeoutMs: 60_000 },
    );
    expect(r.code, describeRun(['run'], r)).toBe(0);
    const log = (await c.logs('/peek')).map((l) => l.text).join('\n');
    expect(log).toContain('exit=4');
    expect(log).toContain("the dashboard (it acts with the owner's rights) is for the cluster's owner only");
    expect(log).not.toMatch(/login\?token=/);
  });

  it('with the cluster stopped it serves the saved jobs read-only until SIGTERM; a cancel is unavailable', async () => {
    await c.submit(['--name', 'saved-job', '--cpu', '0.1'], ['sh', '-c', 'echo kept']);
    await c.waitForState('/saved-job', 'SUCCEEDED');
    // A job that never ended: it asks for more CPU than the cluster has free (a holder takes it).
    const hold = c.gate('offline-holder');
    await c.submit(['--name', 'holder', '--cpu', '2'], ['sh', '-c', hold.hold]);
    await c.waitForState('/holder', 'RUNNING');
    await c.submit(['--name', 'parked', '--cpu', '1'], ['true']);
    await c.stop();
    hold.open();

    const served = await serveOffline(c.cwd, c.env);
    const { child, exited, info } = served;
    try {
      expect(info.mode).toBe('offline');
      expect(info.loginUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/login\?token=/);
      expect(served.stderr()).toMatch(/read-only/);

      const { base, cookie } = await login(info.loginUrl);
      const jobs = await request(new URL('/v1/jobs', base).toString(), { headers: { cookie } });
      expect(jobs.status, jobs.body).toBe(200);
      expect(JSON.parse(jobs.body)).toEqual(
        expect.arrayContaining([expect.objectContaining({ name: '/saved-job', state: 'SUCCEEDED' })]),
      );
      const cancel = await pagePost(base, '/v1/jobs/cancel', cookie, { names: ['/saved-job'] });
      expect(cancel.status).toBe(503);
      expect(JSON.parse(cancel.body)).toMatchObject({ error: { code: 'unavailable' } });
      // A job that has not ended is refused the same way, before anything reaches the saved state.
      for (const [route, body] of [
        ['/v1/jobs/cancel', { names: ['/parked'] }],
        ['/v1/jobs/update', { name: '/parked', priority: 'batch' }],
      ] as const) {
        const refused = await pagePost(base, route, cookie, body);
        expect(refused.status, refused.body).toBe(503);
        expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'unavailable' } });
      }
      expect(served.stderr()).not.toMatch(/readonly database|at .*\.js:\d+/);
      // No cluster was started by any of it.
      const st = await c.iris(['cluster', 'status']);
      expect(st.code, describeRun(['cluster', 'status'], st)).toBe(6);

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      await expect(request(base)).rejects.toThrow();
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('with no saved state at all it exits 6 and serves nothing', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'iris-e2e-empty-'));
    try {
      const r = await runIris(['dashboard', '--url'], { env: { IRIS_HOME: path.join(home, 'none') } });
      expect(r.code, describeRun(['dashboard', '--url'], r)).toBe(6);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/no iris cluster is running/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
