import { parseWorkload } from '../../src/sim/workload-file.js';
import { refusal } from '../helpers/refusal.js';

/** The message parseWorkload refuses `raw` with (as file `w.yaml`); throws when it accepts it. */
export function workloadError(raw: unknown): string {
  return refusal(() => parseWorkload(raw, 'w.yaml'), Error).message;
}
