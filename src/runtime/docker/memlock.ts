/**
 * The memlock fallback. TPU containers ask for an unlimited memlock limit; an engine whose own
 * hard limit is lower and that may not raise it (a restricted VM or sandbox) fails the start with
 * "error setting rlimit type 8". The runtime then retries once at this host's hard limit and says
 * so in the attempt's log, instead of failing every accelerator task.
 */
import { readFileSync } from 'node:fs';

/** The hard "Max locked memory" of this process in bytes, or null when unlimited or unknown. */
export function hostMemlockHardLimit(limitsText?: string): number | null {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return null;
    }
  }
  const line = text.split('\n').find((l) => l.startsWith('Max locked memory'));
  const hard = line?.slice('Max locked memory'.length).trim().split(/\s+/)[1];
  if (hard === undefined || !/^\d+$/.test(hard)) return null;
  return Number(hard);
}
