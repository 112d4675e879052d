/**
 * How iris words a refusal of a flag's value (docs/cli.md, "Errors"): the flag and the value as the
 * user typed them, then what is wrong, and a hint with an example: `--cpu abc: not a number of
 * cores` / `give a number of cores, e.g. --cpu 2 or --cpu 0.5`. The cluster's refusals of a
 * submission's values come back in these words (submit-flags.ts withFlagNames), and so do oclif's
 * own refusals of integer and one-of flags (flagParseRefusal, used by the base command).
 */
import { describeValue } from '../model/errors.js';

/** What a value flag of `submit`/`run` takes and an example of it, keyed by flag. */
export const FLAG_VALUES: Readonly<Record<string, { what: string; example: string }>> = {
  '--cpu': { what: 'a number of cores', example: '--cpu 2 or --cpu 0.5' },
  '--memory': { what: 'a size', example: '--memory 4GiB or --memory 512M' },
  '--gpu': { what: 'a GPU request', example: '--gpu 8, --gpu H100 or --gpu H100x8' },
  '--gpu-memory': { what: 'a size', example: '--gpu-memory 40GiB' },
  '--tpu': { what: 'a TPU variant', example: '--tpu v5litepod-16' },
  '--replicas': { what: 'a number of tasks', example: '--replicas 4' },
  '--max-retries': { what: 'a number of retries', example: '--max-retries 3' },
  '--max-task-failures': { what: 'a number of tasks', example: '--max-task-failures 1' },
  '--max-preemptions': { what: 'a number of preemptions', example: '--max-preemptions 10' },
  '--time-limit': { what: 'a duration', example: '--time-limit 30m or --time-limit 2h' },
  '--scheduling-timeout': { what: 'a duration', example: '--scheduling-timeout 10m' },
  '--retry-backoff': { what: 'a duration', example: '--retry-backoff 10s' },
  '--retry-backoff-max': { what: 'a duration', example: '--retry-backoff-max 5m' },
};

/** A value as a message shows it after its flag: as typed when it is one plain word, else quoted (and cut). */
export function typedValue(value: string | number): string {
  if (typeof value === 'number') return String(value);
  return /^[\w.:/@+-]{1,64}$/.test(value) ? value : describeValue(value);
}

/** The hint of a refused value of `flag`: its example, else `fallback`. */
export function exampleHint(flag: string, fallback: string): string {
  const values = FLAG_VALUES[flag];
  return values ? `give ${values.what}, e.g. ${values.example}` : fallback;
}

/**
 * oclif's refusal of an integer or one-of flag's value (its message as the base command has cleaned
 * it: `--replicas: Expected an integer but received: abc`, `Expected --priority=hi to be one of: a,
 * b`) in iris's words, with the hint to give (`fallback` where the flag has no example); null for
 * any other message.
 */
export function flagParseRefusal(message: string, fallback: string): { message: string; hint: string } | null {
  const integer =
    /^(--[\w-]+): Expected an integer(?: (greater|less) than or equal to (-?\d+))? but received: (.*)$/s.exec(message);
  if (integer) {
    const [, flag, side, bound, value] = integer as unknown as [string, string, string | undefined, string, string];
    const problem =
      side === undefined ? 'not a whole number' : `must be ${bound} or ${side === 'greater' ? 'more' : 'less'}`;
    return { message: `${flag} ${typedValue(value)}: ${problem}`, hint: exampleHint(flag, fallback) };
  }
  const oneOf = /^Expected (--[\w-]+)=(.*) to be one of: (.*)$/s.exec(message);
  if (oneOf) {
    const [, flag, value, list] = oneOf as unknown as [string, string, string, string];
    const first = list.split(', ')[0]!;
    return { message: `${flag} ${typedValue(value)}: not one of ${list}`, hint: `e.g. ${flag} ${first}; ${fallback}` };
  }
  return null;
}
