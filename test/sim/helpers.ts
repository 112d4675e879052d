import { parseWorkload } from '../../src/sim/workload-file.js';

/** The message parseWorkload refuses `raw` with (as file `w.yaml`); throws when it accepts it. */
export function workloadError(raw: unknown): string {
  try {
    parseWorkload(raw, 'w.yaml');
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected an error');
}
