/**
 * The live `iris watch` app: loads a snapshot, then reloads it (at most every `minIntervalMs`)
 * whenever the cluster reports an event, plus a slow periodic refresh for ages and durations.
 * The frame fits the terminal's rows (layout.ts) and re-fits on resize; ↑/↓ or j/k scroll one
 * line, PgUp/PgDn (or space/b) a page, Home/End (g/G) to either end. `q` or Ctrl-C quits.
 */
import { useEffect, useState } from 'react';
import { useApp, useInput, useWindowSize } from 'ink';
import type { IrisClient } from '../../client/types.js';
import { loadSnapshot, type WatchSnapshot } from './snapshot.js';
import { WatchView } from './WatchView.js';
import { fitFrame } from './layout.js';

export interface WatchAppProps {
  client: Pick<IrisClient, 'jobs' | 'workers' | 'events'>;
  now?: () => number;
  all?: boolean;
  minIntervalMs?: number;
  tickMs?: number;
  /** Enable keyboard handling (off when stdin is not a TTY). */
  interactive?: boolean;
  /** Terminal rows; default: the terminal's own (re-read on resize). */
  rows?: number;
}

export function WatchApp({
  client,
  now = Date.now,
  all = false,
  minIntervalMs = 200,
  tickMs = 1000,
  interactive = true,
  rows,
}: WatchAppProps) {
  const [snapshot, setSnapshot] = useState<WatchSnapshot | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [offset, setOffset] = useState(0);
  const { exit } = useApp();
  const windowRows = useWindowSize().rows;
  const height = rows ?? (windowRows > 0 ? windowRows : 24);
  useInput(
    (input, key) => {
      if (input === 'q') {
        exit();
        return;
      }
      if (!snapshot) return;
      const frame = fitFrame(snapshot, { rows: height, offset, error });
      const page = Math.max(1, frame.bodyRows - 1);
      let next = frame.offset;
      if (key.upArrow || input === 'k') next -= 1;
      else if (key.downArrow || input === 'j') next += 1;
      else if (key.pageUp || input === 'b') next -= page;
      else if (key.pageDown || input === ' ') next += page;
      else if (key.home || input === 'g') next = 0;
      else if (key.end || input === 'G') next = frame.maxOffset;
      else return;
      setOffset(Math.min(Math.max(0, next), frame.maxOffset));
    },
    { isActive: interactive },
  );

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

  return <WatchView snapshot={snapshot} error={error} rows={height} offset={offset} />;
}
