import { describe, expect, it } from 'vitest';
import { messageOf, PROBE, SOURCE } from './probe.js';
import { validateConfig } from '../../src/config/index.js';
import { joined } from '../helpers/regex.js';

describe('config: connections', () => {
  it('defaults: caps sized at start, 256 per peer, headers within 10 s, a request within 30 s', () => {
    expect(validateConfig({}, SOURCE, PROBE).connections).toEqual({
      owner: null,
      taskDoor: null,
      metrics: null,
      perPeer: 256,
      headerTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
    });
  });

  it('reads every key', () => {
    const raw = {
      connections: {
        owner: 64,
        'task-door': '500',
        metrics: 8,
        'per-peer': 16,
        'header-timeout': '1s',
        'request-timeout': '2s',
      },
    };
    expect(validateConfig(raw, SOURCE, PROBE).connections).toEqual({
      owner: 64,
      taskDoor: 500,
      metrics: 8,
      perPeer: 16,
      headerTimeoutMs: 1000,
      requestTimeoutMs: 2000,
    });
  });

  it('a header timeout past the default request timeout moves the request timeout with it', () => {
    expect(
      validateConfig({ connections: { 'header-timeout': '1m' } }, SOURCE, PROBE).connections.requestTimeoutMs,
    ).toBe(60_000);
  });

  it('refuses bad values with the key named', () => {
    expect(messageOf({ connections: { 'task-door': 0 } })).toMatch(
      /connections\.task-door.*expected a whole number of at least 1/,
    );
    expect(messageOf({ connections: { 'per-peer': 'many' } })).toMatch(/connections\.per-peer/);
    expect(messageOf({ connections: { 'header-timeout': '10ms' } })).toMatch(
      /connections\.header-timeout.*must be at least 100ms \| for example header-timeout: 10s/,
    );
    expect(messageOf({ connections: { 'header-timeout': '5s', 'request-timeout': '2s' } })).toMatch(
      joined(
        /connections\.header-timeout 5s is longer than connection/,
        /s\.request-timeout 2s \| the headers are part of the request/,
      ),
    );
    expect(messageOf({ connections: { idle: 5 } })).toMatch(/connections\.idle: unknown key/);
    expect(messageOf({ connections: 5 })).toMatch(/connections: expected an object such as \{ task-door: 4096/);
  });
});
