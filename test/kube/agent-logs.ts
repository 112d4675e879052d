/**
 * The kubelet side of the pod log API for the test node agent: each container's output kept as
 * timestamped lines in memory, served over HTTPS at /containerLogs/NS/POD/CONTAINER (the path the
 * API server proxies `GET pods/NAME/log` to).
 *
 * Guarantees:
 * - HTTPS with a self-signed certificate made by `openssl` at start: a 1.20 API server always
 *   talks HTTPS to kubelets (its `--kubelet-https=false` flag is accepted but ignored) and, with
 *   no `--kubelet-certificate-authority`, does not verify the certificate.
 * - Query parameters honoured: `follow` (the reply stays open until the container's output is
 *   complete), `timestamps` (each line prefixed with its RFC 3339 time and a space),
 *   `tailLines`. Others are ignored. An unknown pod or container answers 404.
 * - Lines are stored in memory (the fixture's runs are small); a final line without a newline is
 *   kept when the output ends.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

interface Line {
  time: string;
  text: string;
}

/** The output of one container: stdout and stderr lines in the order they arrived. */
export class LogBuffer {
  readonly lines: Line[] = [];
  private partial = new Map<string, string>();
  private listeners = new Set<(line: Line | null) => void>();
  done = false;

  /** Adds a chunk of one stream (`out` or `err`); complete lines are stored and sent to followers. */
  write(stream: string, chunk: string): void {
    const text = (this.partial.get(stream) ?? '') + chunk;
    const parts = text.split('\n');
    this.partial.set(stream, parts.pop() ?? '');
    for (const part of parts) this.push(part);
  }

  /** The output is complete: flushes unfinished lines and ends every follower. */
  end(): void {
    if (this.done) return;
    for (const rest of this.partial.values()) if (rest !== '') this.push(rest);
    this.partial.clear();
    this.done = true;
    for (const listener of this.listeners) listener(null);
    this.listeners.clear();
  }

  /** Calls `fn` with every later line, then with null at the end; returns the unsubscribe. */
  follow(fn: (line: Line | null) => void): () => void {
    if (this.done) {
      fn(null);
      return () => {};
    }
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private push(text: string): void {
    const line = { time: new Date().toISOString(), text };
    this.lines.push(line);
    for (const listener of this.listeners) listener(line);
  }
}

export interface LogServer {
  port: number;
  close(): Promise<void>;
}

/** Starts the HTTPS log endpoint; `find(ns, pod, container)` gives the container's buffer. */
export async function startLogServer(
  dir: string,
  find: (ns: string, pod: string, container: string) => LogBuffer | undefined,
): Promise<LogServer> {
  const key = path.join(dir, 'kubelet.key');
  const cert = path.join(dir, 'kubelet.crt');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      '/CN=iris-test-kubelet',
    ],
    {
      stdio: 'ignore',
    },
  );
  const server = https.createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://localhost');
    const match = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (req.method !== 'GET' || !match) {
      res
        .writeHead(404, { 'Content-Type': 'text/plain' })
        .end(
          `the test node agent serves only GET /containerLogs/NS/POD/CONTAINER, not ${req.method} ${url.pathname}\n`,
        );
      return;
    }
    const [ns, pod, container] = match.slice(1).map(decodeURIComponent);
    const buffer = find(ns, pod, container);
    if (!buffer) {
      res
        .writeHead(404, { 'Content-Type': 'text/plain' })
        .end(`container ${container} of pod ${ns}/${pod} is not known to this node agent\n`);
      return;
    }
    const timestamps = url.searchParams.get('timestamps') === 'true';
    const follow = url.searchParams.get('follow') === 'true';
    const tail = url.searchParams.get('tailLines');
    const format = (line: Line) => (timestamps ? `${line.time} ${line.text}\n` : `${line.text}\n`);
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    const past =
      tail !== null && Number(tail) >= 0
        ? buffer.lines.slice(Math.max(0, buffer.lines.length - Number(tail)))
        : buffer.lines;
    res.write(past.map(format).join(''));
    if (!follow) {
      res.end();
      return;
    }
    // follow: later lines as they come, the reply ends with the container's output
    const unsubscribe = buffer.follow((line) => (line ? res.write(format(line)) : res.end()));
    res.on('close', unsubscribe);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
