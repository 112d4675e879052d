/**
 * The engine's wait request, read so that a broken connection is an error. The engine answers
 * a wait with its headers at once and the JSON body only when the container stops; dockerode's
 * own wait() never settles when the connection breaks in between (it only listens for the
 * body's end), which would leave an attempt running forever in iris' books.
 */
import type { Readable } from 'node:stream';
import type Docker from 'dockerode';

export interface WaitResult {
  StatusCode: number;
}

export function waitContainer(docker: Docker, id: string): Promise<WaitResult> {
  return new Promise((resolve, reject) => {
    docker.modem.dial(
      {
        path: `/containers/${encodeURIComponent(id)}/wait?`,
        method: 'POST',
        isStream: true,
        statusCodes: { 200: true, 400: 'bad parameter', 404: 'no such container', 500: 'server error' },
        options: {},
      },
      (error: unknown, answer?: unknown) => {
        if (error || !answer) {
          reject(error ?? new Error('no answer to the wait request'));
          return;
        }
        const res = answer as Readable;
        let body = '';
        let ended = false;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => {
          ended = true;
          try {
            const parsed = JSON.parse(body) as { StatusCode?: unknown };
            if (typeof parsed.StatusCode !== 'number') throw new Error('no StatusCode');
            resolve({ StatusCode: parsed.StatusCode });
          } catch {
            reject(Object.assign(new Error(`unexpected answer to wait: ${body.slice(0, 200)}`), { code: 'EPROTO' }));
          }
        });
        res.on('error', (err: Error) => reject(err));
        res.on('close', () => {
          if (!ended)
            reject(
              Object.assign(new Error('the connection to the engine closed while waiting for the container'), {
                code: 'ECONNRESET',
              }),
            );
        });
      },
    );
  });
}
