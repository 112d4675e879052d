/**
 * List-then-watch of one kind of object (the informer pattern, without polling): list, hand the
 * whole set to `reset`, then watch from the list's resourceVersion and hand each event to
 * `event`. When the watch ends (server timeout, 410 Gone, a broken connection) it lists and
 * watches again after `retryMs`, so a handler sees a fresh complete set after every gap.
 * `ready` resolves after the first reset (rejects if the first list fails). close() stops it.
 */
import type { KubeConnection } from './client.js';
import { messageOf } from './client.js';

export interface WatchHandlers<T> {
  reset(items: T[]): void;
  event(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: T): void;
}

export interface WatchLoop {
  ready: Promise<void>;
  close(): void;
}

export function watchLoop<T>(
  conn: KubeConnection,
  path: string,
  query: Record<string, string>,
  list: () => Promise<{ items: T[]; metadata?: { resourceVersion?: string } }>,
  handlers: WatchHandlers<T>,
  log: (message: string) => void,
  retryMs = 1000,
): WatchLoop {
  let closed = false;
  let abort: AbortController | null = null;
  let timer: NodeJS.Timeout | null = null;
  let first = true;
  let resolveReady!: () => void;
  let rejectReady!: (error: unknown) => void;
  const ready = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  ready.catch(() => {});

  const again = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = null;
      void run();
    }, retryMs);
    timer.unref?.();
  };

  const run = async (): Promise<void> => {
    if (closed) return;
    try {
      const listed = await list();
      if (closed) return;
      handlers.reset(listed.items);
      if (first) {
        first = false;
        resolveReady();
      }
      abort = await conn.watch.watch(
        path,
        { ...query, resourceVersion: listed.metadata?.resourceVersion, allowWatchBookmarks: true },
        (type, object) => {
          if (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED') handlers.event(type, object as T);
        },
        (error) => {
          abort = null;
          if (closed) return;
          if (error && (error as { name?: string }).name !== 'AbortError')
            log(`kubernetes: watch of ${path} ended: ${messageOf(error)}; watching again`);
          again();
        },
      );
    } catch (error) {
      if (first) {
        first = false;
        closed = true;
        rejectReady(error);
        return;
      }
      log(`kubernetes: list of ${path} failed: ${messageOf(error)}; trying again`);
      again();
    }
  };
  void run();
  return {
    ready,
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      abort?.abort();
    },
  };
}
