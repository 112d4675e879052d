/**
 * The one pattern of each kind of name (src/model/names.ts) and the words a refusal of it uses,
 * checked through the places that take such a name: a job name, the config's worker names,
 * variants, attributes and host names, a workload file, a submit request's env and coschedule,
 * `--env`, constraints, result keys, addresses.
 */
import { describe, expect, it } from 'vitest';
import { validateConfig, type MachineProbe } from '../../src/config/index.js';
import { coschedule, env } from '../../src/cluster/admission/values.js';
import { parseConstraint } from '../../src/model/constraints.js';
import {
  ATTRIBUTE_KEY,
  ATTRIBUTE_KEY_RULE,
  ENV_KEY,
  ENV_KEY_RULE,
  NAME_COMPONENT,
  NAME_COMPONENT_RULE,
  componentNameRule,
  isComponentName,
  isHostName,
  parseJobName,
} from '../../src/model/names.js';
import { isHost, notAHost, parseHostPort } from '../../src/model/net-address.js';
import { parseGpu } from '../../src/model/resources.js';
import { isResultKey } from '../../src/model/results.js';
import { parseEnvPairs } from '../../src/ui/submit-flags.js';
import { refusal } from '../helpers/refusal.js';

const PROBE: MachineProbe = { cpus: () => 8, memoryBytes: () => 2 ** 35, gpus: () => [], tpuDevicePaths: () => [] };
const parseConfig = (raw: unknown) => validateConfig(raw, 'f.yaml', PROBE);

describe('a name component', () => {
  it.each([
    ['a', true],
    ['A-1_b.c', true],
    ['0step', true],
    ['v5litepod-16', true],
    ['', false],
    ['.hidden', false],
    ['-flag', false],
    ['_x', false],
    ['a b', false],
    ['a/b', false],
    ['a:b', false],
    ['clé', false],
  ])('%j: %s', (text, ok) => {
    expect(NAME_COMPONENT.test(text)).toBe(ok);
    expect(isResultKey(text)).toBe(ok);
    expect(isComponentName(text)).toBe(ok);
  });

  it('has a length of its own at each place (63 for names, 128 for result keys)', () => {
    expect(isComponentName('x'.repeat(63))).toBe(true);
    expect(isComponentName('x'.repeat(64))).toBe(false);
    expect(isComponentName('x'.repeat(61), 61)).toBe(true);
    expect(isResultKey('x'.repeat(128))).toBe(true);
  });

  it('is refused in the same words everywhere', () => {
    const job = refusal(() => parseJobName('/a b'));
    expect(job.message).toBe(`invalid job name "/a b": name component "a b" ${NAME_COMPONENT_RULE}`);
    expect(componentNameRule()).toBe(`a name ${NAME_COMPONENT_RULE} and is at most 63 characters long`);
    expect(refusal(() => parseConfig({ workers: [{ name: 'a b' }] })).message).toContain(
      `invalid worker name "a b": ${componentNameRule()}`,
    );
    const variant = refusal(() => parseConfig({ workers: [{ name: 'a', gpu: { variant: 'H 100', count: 1 } }] }));
    expect(variant.message).toContain(`invalid variant "H 100": a variant ${NAME_COMPONENT_RULE}`);
  });

  it('is the variant of a GPU request, the shortest that leaves xN to the count', () => {
    expect(parseGpu('H100x8')).toEqual({ type: 'gpu', variant: 'H100', count: 8 });
    expect(parseGpu('v5e-x')).toEqual({ type: 'gpu', variant: 'v5e-x', count: 1 });
    expect(() => parseGpu('.H100')).toThrow(/expected COUNT, VARIANT or VARIANTxCOUNT/);
  });
});

describe('an attribute key', () => {
  it.each([
    ['tpu-name', true],
    ['example.com/zone', true],
    ['a_b.c-d/e', true],
    ['/zone', false],
    ['-a', false],
    ['a b', false],
    ['a=b', false],
    ['', false],
  ])('%j: %s', (key, ok) => {
    expect(ATTRIBUTE_KEY.test(key)).toBe(ok);
    if (ok) expect(parseConstraint(key)).toEqual({ key, op: 'exists', values: [] });
  });

  it('is refused in the same words in a config, a workload file and a request', () => {
    const words = `invalid attribute name "a b": it ${ATTRIBUTE_KEY_RULE}`;
    const config = refusal(() => parseConfig({ workers: [{ name: 'a', attributes: { 'a b': 'x' } }] }));
    expect(config.message).toContain(words);
    expect(refusal(() => coschedule('a b')).message).toBe(`coschedule: ${words}`);
  });
});

describe('an environment variable name', () => {
  it.each([
    ['LR', true],
    ['_private', true],
    ['data_dir2', true],
    ['1A', false],
    ['A-B', false],
    ['A.B', false],
    ['', false],
  ])('%j: %s', (key, ok) => {
    expect(ENV_KEY.test(key)).toBe(ok);
  });

  it('is refused in the same words in a request and in --env', () => {
    expect(refusal(() => env({ '1A': 'x' })).message).toBe(`env: invalid variable name "1A": it ${ENV_KEY_RULE}`);
    const flag = refusal(() => parseEnvPairs(['1A=x']));
    expect(flag.message).toBe(`invalid --env "1A=x": the variable name "1A" ${ENV_KEY_RULE}`);
    // `-e LR` copies the submitter's value (issue 30); unset, it is refused in its own words.
    expect(refusal(() => parseEnvPairs(['LR'])).message).toMatch(/^--env LR: it is not set in your environment/);
  });
});

describe('a host name (RFC 1123)', () => {
  it.each([
    ['localhost', true],
    ['tpu-host-1', true],
    ['iris.ns.svc.cluster.local', true],
    ['iris.ns.svc.cluster.local.', true],
    ['10.0.0.2', true],
    ['1host', true],
    ['a'.repeat(63), true],
    [`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`, true],
    ['a'.repeat(64), false],
    [`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`, false],
    ['-x', false],
    ['x-', false],
    ['a-.b', false],
    ['a.-b', false],
    ['a..b', false],
    ['.a', false],
    ['bad_host', false],
    ['a b', false],
    ['a:b', false],
    ['', false],
  ])('%j: %s', (host, ok) => {
    expect(isHostName(host)).toBe(ok);
  });

  it.each([
    ['fe80::1', true],
    ['::1', true],
    ['::ffff:10.0.0.1', true],
    ['tpu-host-1', true],
    ['bad_host', false],
    ['a b', false],
    ['fe80::g', false],
  ])('a host as the config and addresses take it (a host name or an IP address): %j %s', (host, ok) => {
    expect(isHost(host)).toBe(ok);
  });

  it('is refused in the same words by the config and in an address', () => {
    expect(notAHost('bad_host')).toBe('"bad_host" is not a host name or IP address');
    const config = refusal(() => parseConfig({ workers: [{ name: 'a', hostname: 'bad_host' }] }));
    expect(config.message).toContain(`invalid hostname "bad_host": ${notAHost('bad_host')}`);
    const address = refusal(() => parseHostPort('bad_host:7070'));
    expect(address.message).toBe(`invalid address "bad_host:7070": ${notAHost('bad_host')}`);
  });
});
