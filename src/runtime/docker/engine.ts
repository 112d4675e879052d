/**
 * Where the Docker engine is and how to talk about it: the address (DOCKER_HOST or the default
 * socket), a dockerode client for it, a bounded probe, and the one-line messages iris shows for
 * engine errors. An absent engine is an ordinary condition here: every failure becomes a short
 * message, never a stack trace.
 */
import Docker from 'dockerode';
import { formatDuration } from '../../model/duration.js';

export const DEFAULT_SOCKET = '/var/run/docker.sock';

export interface EngineAddress {
  /** As a user would write it: unix:///var/run/docker.sock or tcp://host:2375. */
  url: string;
  socketPath?: string;
  host?: string;
  port?: number;
}

export interface EngineOptions {
  /** Engine address (unix://PATH or tcp://HOST:PORT); default DOCKER_HOST, else the default socket. */
  host?: string;
}

/** Parses DOCKER_HOST-style addresses; anything else is a clear error. */
export function engineAddress(host: string | undefined = process.env.DOCKER_HOST): EngineAddress {
  const value = host?.trim() ?? '';
  if (value === '') return { url: `unix://${DEFAULT_SOCKET}`, socketPath: DEFAULT_SOCKET };
  if (value.startsWith('unix://')) {
    const socketPath = value.slice('unix://'.length) || DEFAULT_SOCKET;
    return { url: `unix://${socketPath}`, socketPath };
  }
  if (value.startsWith('/')) return { url: `unix://${value}`, socketPath: value };
  const tcp = /^(?:tcp|http):\/\/([^:/]+|\[[^\]]+\])(?::(\d+))?\/?$/.exec(value);
  if (tcp) {
    const port = tcp[2] === undefined ? 2375 : Number(tcp[2]);
    return { url: `tcp://${tcp[1]}:${port}`, host: tcp[1]!.replace(/^\[|\]$/g, ''), port };
  }
  throw new Error(
    `unsupported Docker engine address "${value}" (DOCKER_HOST): use unix:///path/to/docker.sock or tcp://host:port`,
  );
}

/**
 * A dockerode client. No keep-alive agent: measured here, reusing connections made concurrent
 * launches twice as slow (requests queue behind long-lived attach/wait connections).
 */
export function dockerClient(address: EngineAddress): Docker {
  if (address.socketPath !== undefined) return new Docker({ socketPath: address.socketPath });
  return new Docker({ host: address.host, port: address.port, protocol: 'http' });
}

interface DockerLikeError {
  code?: string;
  syscall?: string;
  statusCode?: number;
  json?: { message?: string } | null;
  message?: string;
}

/** The error codes of a connection that failed before the engine could answer. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ENOENT',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EACCES',
  'EPERM',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENOTSOCK',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
]);

/** True when the error is about reaching the engine at all (no HTTP answer). */
export function isConnectionError(error: unknown): boolean {
  const e = error as DockerLikeError | null;
  if (e === null || typeof e !== 'object') return false;
  if (typeof e.statusCode === 'number') return false;
  if (typeof e.code === 'string' && CONNECTION_CODES.has(e.code)) return true;
  return /socket hang up|connect |timed? ?out|aborted/i.test(e.message ?? '');
}

/** "connect ENOENT" for socket errors, the engine's own message for HTTP errors, else the message. */
export function shortReason(error: unknown): string {
  const e = error as DockerLikeError | null;
  if (e === null || typeof e !== 'object') return String(error);
  if (typeof e.statusCode === 'number') return engineMessage(error);
  if (typeof e.code === 'string' && e.syscall) return `${e.syscall} ${e.code}`;
  if (typeof e.code === 'string') return `${e.code}: ${e.message ?? ''}`.trim();
  return e.message ?? String(error);
}

/** The engine's own error text (its JSON `message`), without dockerode's "(HTTP code …)" prefix. */
export function engineMessage(error: unknown): string {
  const e = error as DockerLikeError | null;
  const fromJson = e?.json && typeof e.json === 'object' ? e.json.message : undefined;
  if (typeof fromJson === 'string' && fromJson !== '') return fromJson.trim();
  const msg = typeof e?.message === 'string' ? e.message : String(error);
  return msg.replace(/^\(HTTP code \d+\) [^-]*- /, '').trim();
}

export function unreachableMessage(address: EngineAddress, error: unknown): string {
  return (
    `Docker engine not reachable at ${address.url} (${shortReason(error)}); ` +
    'start it with "sudo systemctl start docker" (or "sudo dockerd &"), or set DOCKER_HOST'
  );
}

/** An infrastructure failure: the controller records it as a preemption, not a task failure. */
export class EngineLostError extends Error {
  readonly lost: string;
  constructor(lost: string) {
    super(lost);
    this.name = 'EngineLostError';
    this.lost = lost;
  }
}

export type ProbeResult = { ok: true; version: string; apiVersion: string } | { ok: false; message: string };

/**
 * Asks the engine at `options.host` (default DOCKER_HOST) one question within `options.timeoutMs`
 * (default 5 s): `ask`'s result, or `{ ok: false, message }` when the address is invalid, the
 * engine does not answer in time or the question fails (unreachableMessage). Never throws.
 */
async function askEngine<T>(
  options: EngineOptions & { timeoutMs?: number },
  ask: (docker: Docker) => Promise<T>,
): Promise<T | { ok: false; message: string }> {
  let address: EngineAddress;
  try {
    address = engineAddress(options.host ?? process.env.DOCKER_HOST);
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  const timeoutMs = options.timeoutMs ?? 5000;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      ask(dockerClient(address)),
      new Promise<never>((_, reject) => {
        const late = `no answer within ${formatDuration(timeoutMs, { style: 'short' })}`;
        timer = setTimeout(() => reject(Object.assign(new Error(late), { code: 'ETIMEDOUT' })), timeoutMs);
      }),
    ]);
  } catch (error) {
    return { ok: false, message: unreachableMessage(address, error) };
  } finally {
    clearTimeout(timer);
  }
}

/** Asks the engine for its version within `timeoutMs`; never throws. */
export async function probeEngine(options: EngineOptions & { timeoutMs?: number } = {}): Promise<ProbeResult> {
  return askEngine(options, async (docker): Promise<ProbeResult> => {
    const version = await docker.version();
    return { ok: true, version: String(version.Version), apiVersion: String(version.ApiVersion) };
  });
}

export type GpuRuntimeProbe = { ok: true } | { ok: false; runtimes: string[] } | { ok: false; message: string };

/**
 * Whether the engine can give containers NVIDIA GPUs: its `info` lists a runtime named `nvidia`
 * (how the NVIDIA Container Toolkit registers itself: `nvidia-ctk runtime configure`). Without
 * one, a GPU device request is accepted at create and fails at start ("could not select device
 * driver"). Never throws; `message` when the engine did not answer.
 */
export async function probeGpuRuntime(options: EngineOptions & { timeoutMs?: number } = {}): Promise<GpuRuntimeProbe> {
  return askEngine(options, async (docker): Promise<GpuRuntimeProbe> => {
    const info = (await docker.info()) as { Runtimes?: Record<string, unknown>; DefaultRuntime?: string };
    const runtimes = Object.keys(info.Runtimes ?? {});
    const nvidia = runtimes.some((name) => /nvidia/i.test(name)) || /nvidia/i.test(info.DefaultRuntime ?? '');
    return nvidia ? { ok: true } : { ok: false, runtimes };
  });
}
