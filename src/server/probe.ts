/**
 * Is another controller already serving this socket? One GET /v1/health with a short timeout;
 * never throws. The daemon asks before it takes over a state directory.
 */
import { request } from 'node:http';
import type { HealthResponse } from '../api/types.js';

export function probeController(socketPath: string, timeoutMs = 2000): Promise<HealthResponse | null> {
  return new Promise((resolve) => {
    const req = request({ socketPath, path: '/v1/health', method: 'GET', timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as HealthResponse;
          resolve(res.statusCode === 200 && body.ok === true ? body : null);
        } catch {
          resolve(null);
        }
      });
      res.on('error', () => resolve(null));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
    req.end();
  });
}
