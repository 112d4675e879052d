/**
 * Where the cluster lives. The state home is `$IRIS_HOME` (else `~/.iris`); the controller
 * listens on two doors: the owner's `<home>/run/iris.sock` (full rights) and the task door
 * `<home>/tasks/iris.sock` (every call needs a task token and is scoped to that task's subtree;
 * docs/api.md, "Doors"). `IRIS_CONTROLLER_ADDRESS` overrides the socket: iris sets it to the task
 * door for every task so tasks reach the controller that launched them, and never the owner's.
 * A `unix:` prefix (`unix:/path` or `unix:///path`) is accepted and stripped.
 *
 * With the config's `task-door` (docs/configuration.md) the controller also serves the task door
 * on TCP, and tasks get its advertised URL instead: `IRIS_CONTROLLER_ADDRESS=http://HOST:PORT`
 * (parsed by src/model/net-address.ts, the one home of that syntax). Either way the client sends
 * the task token; only the owner's unix socket answers requests without one.
 */
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { formatControllerUrl, isControllerUrl, parseControllerUrl } from '../model/net-address.js';

export type Env = Readonly<Record<string, string | undefined>>;

export const HOME_ENV = 'IRIS_HOME';
export const ADDRESS_ENV = 'IRIS_CONTROLLER_ADDRESS';
export const TOKEN_ENV = 'IRIS_TASK_TOKEN';
/** A container task's token comes as a file (src/client/task-token.ts): this variable names it. */
export const TOKEN_FILE_ENV = 'IRIS_TASK_TOKEN_FILE';
/** In its own directory, so containers get the socket's directory mounted and nothing else of the state. */
export const SOCKET_FILE = 'run/iris.sock';
/** The task door, in a directory of its own: containers get that directory mounted and nothing else. */
export const TASK_SOCKET_FILE = 'tasks/iris.sock';

function expandTilde(path: string, env: Env): string {
  if (path === '~' || path.startsWith('~/')) return join(env.HOME || homedir(), path.slice(1));
  return path;
}

/** The iris state directory: `$IRIS_HOME`, else `~/.iris`, always absolute. */
export function resolveHome(env: Env = process.env): string {
  const configured = env[HOME_ENV]?.trim();
  if (configured) return resolve(expandTilde(configured, env));
  return join(env.HOME || homedir(), '.iris');
}

export function socketPathFor(home: string): string {
  return join(home, SOCKET_FILE);
}

/** The task door: the socket tasks are given in IRIS_CONTROLLER_ADDRESS. */
export function taskSocketPathFor(home: string): string {
  return join(home, TASK_SOCKET_FILE);
}

/** The pid of the controller that holds `<home>` (written by the holder of the state lock). */
export function pidFileFor(home: string): string {
  return join(home, 'cluster.pid');
}

/** Where a client reaches the controller: a unix socket, or the task door on TCP. */
export type ControllerAddress =
  | { kind: 'unix'; path: string }
  | { kind: 'tcp'; host: string; port: number; url: string };

/**
 * One IRIS_CONTROLLER_ADDRESS value: `http://HOST:PORT` is the task door on TCP; anything else is
 * a socket path (`unix:` stripped, `~` expanded, made absolute). A malformed URL is an
 * IrisError('invalid_argument') naming the variable.
 */
export function parseControllerAddress(value: string, env: Env = process.env): ControllerAddress {
  const text = value.trim();
  if (isControllerUrl(text)) {
    const tcp = parseControllerUrl(text, ADDRESS_ENV);
    return { kind: 'tcp', ...tcp, url: formatControllerUrl(tcp) };
  }
  const path = expandTilde(text.replace(/^unix:(\/\/)?/, ''), env);
  return { kind: 'unix', path: isAbsolute(path) ? path : resolve(path) };
}

/** The controller: `$IRIS_CONTROLLER_ADDRESS`, else the owner's socket `<home>/run/iris.sock`. */
export function resolveAddress(env: Env = process.env): ControllerAddress {
  const address = env[ADDRESS_ENV]?.trim();
  if (address) return parseControllerAddress(address, env);
  return { kind: 'unix', path: socketPathFor(resolveHome(env)) };
}

/** The address as a person reads it: the socket path or the URL. */
export function describeAddress(address: ControllerAddress): string {
  return address.kind === 'unix' ? address.path : address.url;
}
