/**
 * Live updates: one EventSource on `/events` (the dashboard server's SSE of the cluster's event
 * stream) for the whole page. Views subscribe; every event wakes them at most every 500 ms
 * (throttle), so a busy cluster costs each view two reads a second at most.
 * `status` is the badge: `on` while the stream is open, `off` while it is (re)connecting.
 */
import { throttle } from './throttle.js';

export type LiveStatus = 'on' | 'off' | 'offline';

const listeners = new Set<() => void>();
const statusListeners = new Set<(s: LiveStatus) => void>();
let status: LiveStatus = 'off';
let source: EventSource | null = null;

const wake = throttle(() => {
  for (const fn of listeners) fn();
}, 500);

function setStatus(next: LiveStatus) {
  if (next === status) return;
  status = next;
  for (const fn of statusListeners) fn(next);
}

/** Opens the event stream (once). EventSource reconnects by itself after an error. */
export function startLive(): void {
  if (source || typeof EventSource === 'undefined') return;
  source = new EventSource('/events');
  source.onopen = () => {
    setStatus('on');
    wake();
  };
  source.onmessage = () => wake();
  source.onerror = () => setStatus('off');
}

/** Stops the stream for good (the cluster is stopped: nothing will come). */
export function stopLive(): void {
  source?.close();
  source = null;
  setStatus('offline');
}

/** `fn` runs (throttled) on cluster events; returns the unsubscribe. */
export function onChange(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function onStatus(fn: (s: LiveStatus) => void): () => void {
  statusListeners.add(fn);
  fn(status);
  return () => statusListeners.delete(fn);
}
