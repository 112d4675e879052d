/**
 * The live `iris watch` app: loads a snapshot, then reloads it (at most every `minIntervalMs`)
 * whenever the cluster reports an event, plus a slow periodic refresh for ages and durations.
 * `q` or Ctrl-C quits.
 */
import { useEffect, useState } from 'react';
import { useApp, useInput } from 'ink';
import type { IrisClient } from '../../client/types.js';
import { loadSnapshot, type WatchSnapshot } from './snapshot.js';
import { WatchView } from './WatchView.js';

export interface WatchAppProps {
  client: Pick<IrisClient, 'jobs' | 'workers' | 'events'>;
  now?: () => number;
  all?: boolean;
  minIntervalMs?: number;
  tickMs?: number;
  /** Enable keyboard handling (off when stdin is not a TTY). */
  interactive?: boolean;
}

export function WatchApp({ client, now = Date.now, all = false, minIntervalMs = 200, tickMs = 1000, interactive = true }: WatchAppProps) {
  const [snapshot, setSnapshot] = useState<WatchSnapshot | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { exit } = useApp();
  useInput((input) => {
    if (input === 'q') exit();
  }, { isActive: interactive });

  useEffect(() => {
    const abort = new AbortController();
    let loading = false;
    let again = false;
    let last = 0;
    let timer: NodeJS.Timeout | undefined;
    const refresh = async () => {
      if (abort.signal.aborted) return;
      if (loading) {
        again = true;
        return;
      }
      loading = true;
      last = Date.now();
      try {
        const next = await loadSnapshot(client, now, all);
        if (!abort.signal.aborted) {
          setSnapshot(next);
          setError(null);
        }
      } catch (err) {
        if (!abort.signal.aborted) setError((err as Error).message);
      } finally {
        loading = false;
        if (again) {
          again = false;
          schedule();
        }
      }
    };
    const schedule = () => {
      if (timer || abort.signal.aborted) return;
      const wait = Math.max(0, last + minIntervalMs - Date.now());
      timer = setTimeout(() => {
        timer = undefined;
        void refresh();
      }, wait);
    };
    void refresh();
    const tick = setInterval(schedule, tickMs);
    void (async () => {
      try {
        for await (const _event of client.events(abort.signal)) schedule();
      } catch (err) {
        if (!abort.signal.aborted) setError(`event stream ended: ${(err as Error).message}`);
      }
    })();
    return () => {
      abort.abort();
      clearInterval(tick);
      if (timer) clearTimeout(timer);
    };
  }, [client, now, all, minIntervalMs, tickMs]);

  return <WatchView snapshot={snapshot} error={error} />;
}
