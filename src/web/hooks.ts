/**
 * Hooks the views share: the current route (hash routing), an element's width (charts drawn to fit
 * their box), and data that is read on mount, when
 * its inputs change and again on cluster events (live.ts), keeping the last answer while a new
 * read is in flight so a table does not flicker.
 */
import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.js';
import { onChange } from './live.js';
import { parseHash, type Route } from './route.js';

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseHash(location.hash));
    addEventListener('hashchange', update);
    addEventListener('iris:route', update);
    return () => {
      removeEventListener('hashchange', update);
      removeEventListener('iris:route', update);
    };
  }, []);
  return route;
}

/** Goes to `hash`; `replace` keeps the history entry (filters typed into a box). */
export function navigate(hash: string, replace = false): void {
  if (replace) {
    history.replaceState(null, '', hash);
    dispatchEvent(new Event('iris:route'));
  } else location.hash = hash;
}

export interface Data<T> {
  data: T | null;
  error: ApiError | null;
  /** Re-read now. */
  reload: () => void;
}

/**
 * `read()` on mount, when `key` changes (a text naming everything `read` depends on), and on cluster
 * events (unless `live` is false).
 */
export function useData<T>(read: (signal: AbortSignal) => Promise<T>, key: string, live = true): Data<T> {
  const [state, setState] = useState<{ data: T | null; error: ApiError | null }>({ data: null, error: null });
  const generation = useRef(0);
  const reader = useRef(read);
  reader.current = read;
  const load = useRef(() => {});
  load.current = () => {
    const mine = ++generation.current;
    const abort = new AbortController();
    reader
      .current(abort.signal)
      .then((data) => {
        if (mine === generation.current) setState({ data, error: null });
      })
      .catch((error: unknown) => {
        if (mine !== generation.current) return;
        const e = error instanceof ApiError ? error : new ApiError(0, 'internal', String(error));
        setState((s) => ({ data: s.data, error: e }));
      });
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` names what `read` depends on
  useEffect(() => {
    setState({ data: null, error: null });
    load.current();
    if (!live) return;
    return onChange(() => load.current());
  }, [key, live]);
  return { ...state, reload: () => load.current() };
}

/** The clock, ticking every `ms` (for ages). */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

/**
 * The width of the element `ref` points at (its content box, in CSS px), followed as it changes (the
 * window resized, a scrollbar appearing); 0 before it is laid out. `onChange` also runs at each change.
 */
export function useWidth(ref: RefObject<HTMLElement | null>, onChange?: (width: number) => void): number {
  const [width, setWidth] = useState(0);
  const changed = useRef(onChange);
  changed.current = onChange;
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const update = () => {
      const next = el.clientWidth;
      setWidth(next);
      changed.current?.(next);
    };
    update();
    if (typeof ResizeObserver === 'undefined') {
      addEventListener('resize', update);
      return () => removeEventListener('resize', update);
    }
    const observer = new ResizeObserver(update);
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}
