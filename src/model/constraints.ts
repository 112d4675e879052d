/**
 * Constraints on worker attributes. Syntax (one per --constraint flag):
 *   key=value  key!=value  key in (a,b,c)  key notin (a,b)  key  !key
 *   key>N  key>=N  key<N  key<=N   (numeric)
 * All constraints of a job must hold. A missing attribute fails every operator except `!key`
 * (not-exists), including `!=` and `notin`.
 */
import { describeValue, invalid } from './errors.js';
import { ATTRIBUTE_KEY_CHARS } from './names.js';

export type ConstraintOp = 'eq' | 'ne' | 'in' | 'notin' | 'exists' | 'not_exists' | 'gt' | 'ge' | 'lt' | 'le';

export interface Constraint {
  key: string;
  op: ConstraintOp;
  values: string[];
}

const KEY = ATTRIBUTE_KEY_CHARS;
const PATTERNS: Array<[RegExp, (m: RegExpExecArray) => Constraint]> = [
  [new RegExp(`^!\\s*(${KEY})$`), (m) => ({ key: m[1]!, op: 'not_exists', values: [] })],
  [
    new RegExp(`^(${KEY})\\s+(in|notin)\\s+\\(?([^()]*)\\)?$`),
    (m) => ({ key: m[1]!, op: m[2] as 'in' | 'notin', values: splitList(m[3]!) }),
  ],
  [
    new RegExp(`^(${KEY})\\s*(>=|<=|>|<)\\s*(-?\\d+(?:\\.\\d+)?)$`),
    (m) => ({ key: m[1]!, op: NUMERIC[m[2]!]!, values: [m[3]!] }),
  ],
  [new RegExp(`^(${KEY})\\s*!=\\s*(.+)$`), (m) => ({ key: m[1]!, op: 'ne', values: [m[2]!.trim()] })],
  [new RegExp(`^(${KEY})\\s*==?\\s*(.+)$`), (m) => ({ key: m[1]!, op: 'eq', values: [m[2]!.trim()] })],
  [new RegExp(`^(${KEY})$`), (m) => ({ key: m[1]!, op: 'exists', values: [] })],
];
const NUMERIC: Record<string, ConstraintOp> = { '>': 'gt', '>=': 'ge', '<': 'lt', '<=': 'le' };

function splitList(text: string): string[] {
  return text
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
}

export function parseConstraint(input: string): Constraint {
  const text = input.trim();
  for (const [pattern, build] of PATTERNS) {
    const match = pattern.exec(text);
    if (match) {
      const constraint = build(match);
      if ((constraint.op === 'in' || constraint.op === 'notin') && constraint.values.length === 0) {
        throw invalid(`invalid constraint ${describeValue(input)}: "${constraint.op}" needs at least one value`);
      }
      return constraint;
    }
  }
  throw invalid(
    `invalid constraint ${describeValue(input)}`,
    'use key=value, key!=value, "key in (a,b)", "key notin (a,b)", key, !key, or key>N / key>=N / key<N / key<=N',
  );
}

/** Does an attribute map satisfy one constraint? A missing attribute fails all but not-exists. */
export function constraintHolds(c: Constraint, attributes: Readonly<Record<string, string>>): boolean {
  const value = attributes[c.key];
  if (c.op === 'not_exists') return value === undefined;
  if (value === undefined) return false;
  switch (c.op) {
    case 'exists':
      return true;
    case 'eq':
      return value === c.values[0];
    case 'ne':
      return value !== c.values[0];
    case 'in':
      return c.values.includes(value);
    case 'notin':
      return !c.values.includes(value);
    default: {
      const left = Number(value);
      const right = Number(c.values[0]);
      if (!Number.isFinite(left)) return false;
      if (c.op === 'gt') return left > right;
      if (c.op === 'ge') return left >= right;
      if (c.op === 'lt') return left < right;
      return left <= right;
    }
  }
}

export function formatConstraint(c: Constraint): string {
  switch (c.op) {
    case 'eq':
      return `${c.key}=${c.values[0]}`;
    case 'ne':
      return `${c.key}!=${c.values[0]}`;
    case 'in':
      return `${c.key} in (${c.values.join(',')})`;
    case 'notin':
      return `${c.key} notin (${c.values.join(',')})`;
    case 'exists':
      return c.key;
    case 'not_exists':
      return `!${c.key}`;
    case 'gt':
      return `${c.key}>${c.values[0]}`;
    case 'ge':
      return `${c.key}>=${c.values[0]}`;
    case 'lt':
      return `${c.key}<${c.values[0]}`;
    case 'le':
      return `${c.key}<=${c.values[0]}`;
  }
}
