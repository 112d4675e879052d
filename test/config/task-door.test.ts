/** The config's `task-door` key: the task door on TCP and the URL tasks are given. */
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/schema/validate.js';
import type { MachineProbe } from '../../src/config/detect.js';
import { refusal } from '../helpers/refusal.js';

const SOURCE = '/proj/.irisrc.yaml';
const PROBE: MachineProbe = {
  cpus: () => 8,
  memoryBytes: () => 32 * 1024 ** 3,
  gpus: () => [],
  tpuDevicePaths: () => [],
};

const errorOf = (raw: unknown) => refusal(() => validateConfig(raw, SOURCE, PROBE));

describe('task-door', () => {
  it('is off by default', () => {
    expect(validateConfig({}, SOURCE, PROBE).taskDoor).toBeNull();
    expect(validateConfig({ 'task-door': null }, SOURCE, PROBE).taskDoor).toBeNull();
  });

  it('listen and advertise resolve to an address and a URL', () => {
    expect(
      validateConfig(
        { 'task-door': { listen: '0.0.0.0:7070', advertise: 'http://iris-task-door:7070/' } },
        SOURCE,
        PROBE,
      ).taskDoor,
    ).toEqual({
      listen: { host: '0.0.0.0', port: 7070 },
      advertise: 'http://iris-task-door:7070',
    });
  });

  it('without advertise, a specific listen address is itself advertised', () => {
    expect(validateConfig({ 'task-door': { listen: '127.0.0.1:7070' } }, SOURCE, PROBE).taskDoor).toEqual({
      listen: { host: '127.0.0.1', port: 7070 },
      advertise: 'http://127.0.0.1:7070',
    });
    expect(validateConfig({ 'task-door': { listen: '[::1]:7071' } }, SOURCE, PROBE).taskDoor?.advertise).toBe(
      'http://[::1]:7071',
    );
  });

  it('a wildcard listen address needs advertise', () => {
    for (const listen of ['0.0.0.0:7070', '[::]:7070']) {
      const error = errorOf({ 'task-door': { listen } });
      expect(error.message).toMatch(
        /task-door: task-door.advertise is needed: tasks cannot be given the wildcard address/,
      );
      expect(error.hint).toMatch(/advertise: http:\/\/iris-task-door:7070/);
    }
  });

  it('bad values name the key and say what is expected', () => {
    expect(errorOf({ 'task-door': { listen: '7070' } }).message).toMatch(
      /task-door.listen: invalid task-door.listen "7070": expected HOST:PORT/,
    );
    expect(errorOf({ 'task-door': { listen: 'localhost:0' } }).message).toMatch(
      /the port must be a number from 1 to 65535/,
    );
    expect(errorOf({ 'task-door': { listen: '0.0.0.0:7070', advertise: 'https://iris:7070' } }).message).toMatch(
      /task-door.advertise: invalid task-door.advertise "https:\/\/iris:7070": the task door speaks plain HTTP/,
    );
    expect(errorOf({ 'task-door': { advertise: 'http://iris:7070' } }).message).toMatch(/task-door.listen/);
    expect(errorOf({ 'task-door': { listen: '0.0.0.0:7070', port: 1 } }).message).toMatch(/port/);
    expect(errorOf({ 'task-door': 'yes' }).message).toMatch(
      /task-door: expected an object such as \{ listen: 0.0.0.0:7070/,
    );
  });
});
