/**
 * The server fixture itself: a started server answers /readyz with the kubeconfig's token; stop() leaves no process and
 * no state dir.
 */
import { existsSync, readFileSync } from 'node:fs';
import https from 'node:https';
import { expect, it } from 'vitest';
import { describeKube, startKubeServer } from './server.js';

function get(url: string, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { headers: { Authorization: `Bearer ${token}` }, rejectUnauthorized: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

describeKube('kubernetes server fixture', () => {
  it('starts a server that answers with the kubeconfig token, and stop() leaves nothing behind', async () => {
    const s = await startKubeServer();
    const pids = ['etcd', 'kube-apiserver'].map((name) => Number(readFileSync(`${s.dir}/${name}.pid`, 'utf8')));
    try {
      const token = /token: (\S+)/.exec(readFileSync(s.kubeconfig, 'utf8'))?.[1] ?? '';
      expect(s.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(await get(`${s.server}/readyz`, token)).toEqual({ status: 200, body: 'ok' });
      expect((await get(`${s.server}/readyz`, 'wrong-token')).status).toBe(401);
    } finally {
      await s.stop();
    }
    expect(existsSync(s.dir)).toBe(false);
    expect(pids.filter(pidAlive)).toEqual([]);
    await s.stop(); // a second stop is harmless
  }, 120_000);
});
