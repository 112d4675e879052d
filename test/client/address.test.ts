import { describe, expect, it } from 'vitest';
import {
  describeAddress,
  parseControllerAddress,
  resolveAddress,
  resolveHome,
  socketPathFor,
  taskSocketPathFor,
  type Env,
} from '../../src/api/address.js';
import { formatHostPort, parseControllerUrl, parseHostPort } from '../../src/model/net-address.js';
import { SocketClient } from '../../src/client/socket-client.js';

/** The socket path resolveAddress gives (fails for a TCP address). */
function resolveSocket(env: Env): string {
  const address = resolveAddress(env);
  if (address.kind !== 'unix') throw new Error(`expected a socket, got ${describeAddress(address)}`);
  return address.path;
}

describe('address resolution', () => {
  it('defaults to ~/.iris and <home>/run/iris.sock', () => {
    expect(resolveHome({ HOME: '/home/a' })).toBe('/home/a/.iris');
    expect(socketPathFor('/x/y')).toBe('/x/y/run/iris.sock');
    expect(taskSocketPathFor('/x/y')).toBe('/x/y/tasks/iris.sock');
    expect(resolveSocket({ HOME: '/home/a' })).toBe('/home/a/.iris/run/iris.sock');
  });

  it('honours IRIS_HOME (absolute, relative, ~)', () => {
    expect(resolveHome({ HOME: '/home/a', IRIS_HOME: '/srv/iris' })).toBe('/srv/iris');
    expect(resolveHome({ HOME: '/home/a', IRIS_HOME: '~/alt' })).toBe('/home/a/alt');
    expect(resolveHome({ IRIS_HOME: 'rel' })).toBe(`${process.cwd()}/rel`);
    expect(resolveSocket({ IRIS_HOME: '/srv/iris' })).toBe('/srv/iris/run/iris.sock');
    expect(resolveHome({ HOME: '/home/a', IRIS_HOME: '  ' })).toBe('/home/a/.iris');
  });

  it('IRIS_CONTROLLER_ADDRESS overrides the socket, with or without unix:', () => {
    const env = { HOME: '/home/a', IRIS_HOME: '/srv/iris' };
    expect(resolveSocket({ ...env, IRIS_CONTROLLER_ADDRESS: '/run/task.sock' })).toBe('/run/task.sock');
    expect(resolveSocket({ ...env, IRIS_CONTROLLER_ADDRESS: 'unix:///run/task.sock' })).toBe('/run/task.sock');
    expect(resolveSocket({ ...env, IRIS_CONTROLLER_ADDRESS: 'unix:/run/task.sock' })).toBe('/run/task.sock');
    expect(resolveHome({ ...env, IRIS_CONTROLLER_ADDRESS: '/run/task.sock' })).toBe('/srv/iris');
  });

  it('IRIS_CONTROLLER_ADDRESS=http://HOST:PORT is the task door on TCP', () => {
    expect(resolveAddress({ IRIS_CONTROLLER_ADDRESS: 'http://iris-task-door:7070' })).toEqual({
      kind: 'tcp',
      host: 'iris-task-door',
      port: 7070,
      url: 'http://iris-task-door:7070',
    });
    expect(resolveAddress({ IRIS_CONTROLLER_ADDRESS: ' http://10.0.0.5:7070/ ' })).toEqual({
      kind: 'tcp',
      host: '10.0.0.5',
      port: 7070,
      url: 'http://10.0.0.5:7070',
    });
    expect(resolveAddress({ IRIS_CONTROLLER_ADDRESS: 'http://[::1]:7070' })).toEqual({
      kind: 'tcp',
      host: '::1',
      port: 7070,
      url: 'http://[::1]:7070',
    });
    expect(resolveAddress({ IRIS_CONTROLLER_ADDRESS: 'HTTP://iris.ns.svc.cluster.local:80' })).toMatchObject({
      kind: 'tcp',
      host: 'iris.ns.svc.cluster.local',
      port: 80,
    });
    expect(parseControllerAddress('/run/t.sock')).toEqual({ kind: 'unix', path: '/run/t.sock' });
    expect(new SocketClient({ env: { IRIS_CONTROLLER_ADDRESS: 'http://127.0.0.1:7070' } }).socketPath).toBe(
      'http://127.0.0.1:7070',
    );
  });

  it('a malformed URL in IRIS_CONTROLLER_ADDRESS is refused, naming the variable and the rule', () => {
    const cases: Array<[string, RegExp]> = [
      [
        'https://iris:7070',
        /invalid IRIS_CONTROLLER_ADDRESS "https:\/\/iris:7070": the task door speaks plain HTTP, not https/,
      ],
      ['http://iris', /the port is missing/],
      ['http://iris:0', /the port must be a number from 1 to 65535/],
      ['http://iris:70000', /the port must be a number from 1 to 65535/],
      ['http://iris:7070/v1', /only http:\/\/HOST:PORT, without a user, path or query/],
      ['http://user@iris:7070', /without a user/],
      ['http://::1:7070', /write an IPv6 host in brackets/],
      ['http://bad_host:7070', /"bad_host" is not a host name or IP address/],
      ['ftp://iris:7070', /expected http:\/\/HOST:PORT/],
    ];
    for (const [value, message] of cases) {
      expect(() => resolveAddress({ IRIS_CONTROLLER_ADDRESS: value }), value).toThrow(message);
      try {
        resolveAddress({ IRIS_CONTROLLER_ADDRESS: value });
      } catch (error) {
        expect((error as { code: string }).code).toBe('invalid_argument');
        expect((error as { hint?: string }).hint).toMatch(/for example/);
      }
    }
  });

  it('listen addresses: HOST:PORT, IPv6 in brackets, written back the same way', () => {
    expect(parseHostPort('0.0.0.0:7070')).toEqual({ host: '0.0.0.0', port: 7070 });
    expect(parseHostPort('[::]:7070')).toEqual({ host: '::', port: 7070 });
    expect(formatHostPort(parseHostPort('[::]:7070'))).toBe('[::]:7070');
    expect(formatHostPort(parseControllerUrl('http://a.b:1'))).toBe('a.b:1');
    expect(() => parseHostPort('7070', 'task-door.listen')).toThrow(
      /invalid task-door.listen "7070": expected HOST:PORT \(the port is missing\)/,
    );
    expect(() => parseHostPort('[zz]:1')).toThrow(/is not an IPv6 address/);
    expect(() => parseHostPort(7070)).toThrow(/expected HOST:PORT/);
  });
});
