/**
 * List-then-watch of one kind of object (the informer pattern, without polling): list in pages,
 * hand the whole set to the handlers page by page (`begin`, `page`…, `end`), then watch from the
 * list's resourceVersion and hand each event to `event`. Guarantees:
 * - A list is read in pages of at most `pageSize` objects (limit / continue), so a list of 10,000
 *   Pods never lies in memory whole: the handler keeps what it needs of each page.
 * - When a watch ends (the client's inactivity timeout, the server closing it, a broken
 *   connection) it watches again from the last resourceVersion it saw (events and bookmarks), so
 *   no event is lost and nothing is listed again. It lists again only when the server says that
 *   version is gone (an ERROR event such as 410 Gone, a refused watch) or a list failed: then the
 *   handlers see a fresh complete set. A gap waits `retryMs` unless the watch simply timed out.
 * - `ready` resolves after the first complete list (rejects if the first list fails). close()
 *   stops it. `lists`, `pages` and `watches` count the requests made (for tests and the bench).
 */
import type { KubeConnection } from './client.js';
import { messageOf } from './client.js';

export interface WatchHandlers<T> {
  /** A complete list starts: the pages that follow are the whole set. */
  begin(): void;
  page(items: T[]): void;
  /** The list is complete. */
  end(): void;
  event(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: T): void;
}

/** One page of a list request's reply (a V1PodList, a V1NodeList). */
export interface ListPage<T> {
  items: T[];
  metadata?: { resourceVersion?: string; _continue?: string };
}

export interface WatchLoop {
  ready: Promise<void>;
  close(): void;
  /** Complete lists read, pages requested and watches opened so far. */
  readonly counts: { lists: number; pages: number; watches: number };
}

/** Objects per list page. */
export const LIST_PAGE_SIZE = 500;

interface Versioned {
  metadata?: { resourceVersion?: string } | null;
}

export function watchLoop<T>(
  conn: KubeConnection,
  path: string,
  query: Record<string, string>,
  list: (page: { limit: number; _continue?: string }) => Promise<ListPage<T>>,
  handlers: WatchHandlers<T>,
  log: (message: string) => void,
  options: { retryMs?: number; pageSize?: number } = {},
): WatchLoop {
  const retryMs = options.retryMs ?? 1000;
  const pageSize = options.pageSize ?? LIST_PAGE_SIZE;
  const counts = { lists: 0, pages: 0, watches: 0 };
  let closed = false;
  let abort: AbortController | null = null;
  let timer: NodeJS.Timeout | null = null;
  let first = true;
  /** The last resourceVersion seen; null: list before watching. */
  let version: string | null = null;
  let resolveReady!: () => void;
  let rejectReady!: (error: unknown) => void;
  const ready = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  ready.catch(() => {});

  const again = (delayMs: number) => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = null;
      void run();
    }, delayMs);
    timer.unref?.();
  };

  /** Reads every page into the handlers; returns the list's resourceVersion. */
  const listAll = async (): Promise<string | undefined> => {
    let next: string | undefined;
    let listVersion: string | undefined;
    handlers.begin();
    do {
      counts.pages++;
      const reply = await list(next === undefined ? { limit: pageSize } : { limit: pageSize, _continue: next });
      if (closed) return undefined;
      handlers.page(reply.items);
      listVersion = reply.metadata?.resourceVersion;
      next = reply.metadata?._continue || undefined;
    } while (next !== undefined);
    counts.lists++;
    handlers.end();
    return listVersion;
  };

  const run = async (): Promise<void> => {
    if (closed) return;
    try {
      if (version === null) {
        const listed = await listAll();
        if (closed) return;
        version = listed ?? '';
        if (first) {
          first = false;
          resolveReady();
        }
      }
      let gone = false;
      counts.watches++;
      abort = await conn.watch.watch(
        path,
        { ...query, ...(version ? { resourceVersion: version } : {}), allowWatchBookmarks: true },
        (type, object) => {
          if (type === 'ERROR') {
            // 410 Gone (the version was compacted away) or another refusal: list afresh.
            gone = true;
            return;
          }
          const seen = (object as Versioned | null)?.metadata?.resourceVersion;
          if (seen) version = seen;
          if (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED') handlers.event(type, object as T);
        },
        (error) => {
          abort = null;
          if (closed) return;
          const name = (error as { name?: string } | null)?.name;
          const refused = typeof (error as { statusCode?: unknown } | null)?.statusCode === 'number';
          if (gone || refused) version = null;
          if (error && name !== 'AbortError' && name !== 'TimeoutError')
            log(`kubernetes: watch of ${path} ended: ${messageOf(error)}; watching again`);
          // A quiet watch that timed out resumes at once; anything else waits a moment.
          again(error && name === 'TimeoutError' && version !== null ? 0 : retryMs);
        },
      );
    } catch (error) {
      if (first) {
        first = false;
        closed = true;
        rejectReady(error);
        return;
      }
      version = null;
      log(`kubernetes: list of ${path} failed: ${messageOf(error)}; trying again`);
      again(retryMs);
    }
  };
  void run();
  return {
    ready,
    counts,
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      abort?.abort();
    },
  };
}
