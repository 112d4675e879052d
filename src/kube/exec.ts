/**
 * `iris exec` into a task's Pod on the kubernetes backend (docs/kubernetes.md, "iris exec"): the
 * Pod exec API (`kubectl exec`), through @kubernetes/client-node's Exec over a WebSocket to the
 * API server, which proxies it to the kubelet of the Pod's Node. The command runs in the task's
 * container as its user, with its environment. Its exit code is the exec's status (`Success`:
 * 0; a failure names its `ExitCode`); with a terminal, a resize is sent on the resize channel.
 * A refusal of the API server (no such Pod, its Node unreachable) is an IrisError naming it.
 */
import { PassThrough } from 'node:stream';
import type { V1Status } from '@kubernetes/client-node';
import { IrisError } from '../model/errors.js';
import type { ExecSession, ExecSpec } from '../runtime/types.js';
import type { KubeConnection } from './client.js';
import { CONTAINER_NAME } from './pods.js';

/** The exit code an exec's final status names (0 for `Success`), or null when it names none. */
export function execExitCode(status: V1Status | null): number | null {
  if (status === null) return null;
  if (status.status === 'Success') return 0;
  const cause = status.details?.causes?.find((c) => c.reason === 'ExitCode');
  const code = cause?.message === undefined ? NaN : Number(cause.message);
  return Number.isInteger(code) ? code : null;
}

/** A terminal's output stream as client-node wants one for resizes: `rows`, `columns` and a 'resize' event. */
class TerminalOutput extends PassThrough {
  rows: number;
  columns: number;
  constructor(size?: { rows: number; cols: number }) {
    super();
    this.rows = size?.rows ?? 24;
    this.columns = size?.cols ?? 80;
  }
}

export async function execInPod(conn: KubeConnection, pod: string, spec: ExecSpec): Promise<ExecSession> {
  const k8s = await import('@kubernetes/client-node');
  const stdout = spec.tty ? new TerminalOutput(spec.size) : new PassThrough();
  const stderr = spec.tty ? null : new PassThrough();
  const stdin = spec.stdin ? new PassThrough() : null;
  let status: V1Status | null = null;
  let socket: { close(): void; on?(event: string, listener: () => void): void; onclose?: unknown; readyState?: number };
  try {
    socket = (await new k8s.Exec(conn.config).exec(
      conn.namespace,
      pod,
      CONTAINER_NAME,
      [...spec.argv],
      stdout,
      stderr,
      stdin,
      spec.tty,
      (s) => {
        status = s;
      },
    )) as unknown as typeof socket;
  } catch (error) {
    const text = (error as { message?: string }).message ?? String(error);
    throw new IrisError(
      'unavailable',
      `the Kubernetes API server at ${conn.server} could not run the command in pod ${pod}: ${text}`,
      "the API server proxies an exec to the kubelet of the Pod's Node: check that the Node is Ready (kubectl get " +
        'nodes)',
    );
  }
  const closed = new Promise<void>((resolve) => {
    const done = () => resolve();
    if (typeof socket.on === 'function') socket.on('close', done);
    else (socket as { onclose: () => void }).onclose = done;
  });
  void closed.then(() => {
    stdout.end();
    stderr?.end();
  });
  const exited = closed.then(() => {
    const code = execExitCode(status);
    if (code !== null) return code;
    const why = (status as V1Status | null)?.message;
    throw new IrisError('unavailable', `the command in pod ${pod} ended without an exit code${why ? `: ${why}` : ''}`);
  });
  exited.catch(() => undefined);
  return {
    stdin,
    stdout,
    stderr,
    exited,
    resize: (rows, cols) => {
      if (!(stdout instanceof TerminalOutput)) return;
      stdout.rows = Math.trunc(rows);
      stdout.columns = Math.trunc(cols);
      stdout.emit('resize');
    },
    kill: () => socket.close(),
  };
}
