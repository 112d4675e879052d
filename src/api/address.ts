/**
 * Where the cluster lives. The state home is `$IRIS_HOME` (else `~/.iris`); the controller
 * listens on two doors: the owner's `<home>/run/iris.sock` (full rights) and the task door
 * `<home>/tasks/iris.sock` (every call needs a task token and is scoped to that task's subtree;
 * docs/api.md, "Doors"). `IRIS_CONTROLLER_ADDRESS` overrides the socket: iris sets it to the task
 * door for every task so tasks reach the controller that launched them, and never the owner's.
 * A `unix:` prefix (`unix:/path` or `unix:///path`) is accepted and stripped.
 */
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

export type Env = Readonly<Record<string, string | undefined>>;

export const HOME_ENV = 'IRIS_HOME';
export const ADDRESS_ENV = 'IRIS_CONTROLLER_ADDRESS';
export const TOKEN_ENV = 'IRIS_TASK_TOKEN';
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

/** The controller socket: `$IRIS_CONTROLLER_ADDRESS`, else `<home>/run/iris.sock`. */
export function resolveSocket(env: Env = process.env): string {
  const address = env[ADDRESS_ENV]?.trim();
  if (address) {
    const path = expandTilde(address.replace(/^unix:(\/\/)?/, ''), env);
    return isAbsolute(path) ? path : resolve(path);
  }
  return socketPathFor(resolveHome(env));
}
