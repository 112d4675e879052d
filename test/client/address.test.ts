import { describe, expect, it } from 'vitest';
import { resolveHome, resolveSocket, socketPathFor, taskSocketPathFor } from '../../src/api/address.js';

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
});
