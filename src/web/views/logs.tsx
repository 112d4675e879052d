/**
 * `#/logs/<target>`: a task's or a subtree's log (GET /v1/logs, NDJSON read with fetch and a
 * ReadableStream), following it live. Big logs stay responsive: the reader parses in slices of
 * SLICE_MS and yields to the page between them; lines arriving are queued and drawn per animation
 * frame, at most LINES_PER_FRAME at a time; at most MAX_LINES stay (the oldest are dropped from the
 * queue, the buffer and the DOM, so a backlog is skipped rather than drawn); lines are DOM nodes
 * written with textContent (never parsed as HTML), laid out only when on screen (CSS
 * content-visibility).
 * The search box hides the lines that do not match; the time and task prefixes are toggled by a
 * class on the container. `since`, `tail` and `follow` are kept in the URL.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { LogBatch, LogLine } from '../../api/types.js';
import { ApiError, streamJson } from '../api.js';
import { ErrorBox } from '../components.js';
import { formatLogTime } from '../format.js';
import { navigate } from '../hooks.js';
import { expandItem, LineBuffer, lineMatches } from '../log-buffer.js';
import { hashOf, jobHash } from '../route.js';

export const MAX_LINES = 5000;
/** New lines drawn per animation frame at most; a backlog beyond MAX_LINES is skipped (it would be dropped). */
const LINES_PER_FRAME = 1000;
/** The reader yields to the page after this long of parsing (ms), so drawing and input keep up. */
const SLICE_MS = 12;

/** A macrotask: lets the browser draw and handle input between parsed chunks. */
const pause = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

function lineNode(line: LogLine): HTMLDivElement {
  const div = document.createElement('div');
  div.className = line.stream === 'stderr' ? 'line err' : 'line';
  const time = document.createElement('span');
  time.className = 'lt';
  time.textContent = formatLogTime(line.time);
  const task = document.createElement('span');
  task.className = 'lk';
  task.textContent = `${line.task}${line.attempt > 0 ? `#${line.attempt}` : ''}`;
  div.append(time, task, document.createTextNode(line.text));
  return div;
}

type Phase = 'connecting' | 'following' | 'ended' | 'failed';

export function LogsView({ target, params }: { target: string; params: Record<string, string> }) {
  const follow = params.follow !== '0';
  const tail = params.tail ?? '1000';
  const since = params.since ?? '';
  const box = useRef<HTMLDivElement>(null);
  const [search, setSearch] = useState('');
  const searchRef = useRef(search);
  const [showTime, setShowTime] = useState(true);
  const [showTask, setShowTask] = useState(true);
  const [phase, setPhase] = useState<Phase>('connecting');
  const [error, setError] = useState<ApiError | null>(null);
  const [counts, setCounts] = useState({ shown: 0, dropped: 0 });

  useEffect(() => {
    const el = box.current;
    if (!el || !target) return;
    // A new target (or window): nothing of the previous read stays, its error included.
    el.textContent = '';
    setError(null);
    setPhase('connecting');
    setCounts({ shown: 0, dropped: 0 });
    const buffer = new LineBuffer<{ line: LogLine; node: HTMLDivElement }>(MAX_LINES);
    let queue: LogLine[] = [];
    let frame = 0;
    const abort = new AbortController();
    const draw = () => {
      frame = 0;
      if (queue.length >= MAX_LINES) {
        // The queue alone fills the window: every line shown, and the queue's head, would be dropped.
        const dropped = buffer.dropped + buffer.size + queue.length - MAX_LINES;
        queue = queue.slice(-MAX_LINES);
        buffer.clear();
        buffer.dropped = dropped;
        el.textContent = '';
      }
      const batch = queue.slice(0, LINES_PER_FRAME);
      queue = queue.slice(batch.length);
      if (queue.length > 0) frame = requestAnimationFrame(draw);
      const stick = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
      const fragment = document.createDocumentFragment();
      const entries = batch.map((line) => {
        const node = lineNode(line);
        if (!lineMatches(line, searchRef.current)) node.hidden = true;
        fragment.append(node);
        return { line, node };
      });
      el.append(fragment);
      const leaving = buffer.oldest(buffer.size + entries.length - MAX_LINES);
      buffer.push(entries);
      for (const { node } of leaving) node.remove();
      setCounts({ shown: buffer.size, dropped: buffer.dropped });
      if (stick) el.scrollTop = el.scrollHeight;
    };
    (async () => {
      try {
        const query = { target, follow, tail: /^\d+$/.test(tail) ? tail : undefined, since: since || undefined };
        setPhase(follow ? 'following' : 'connecting');
        let slice = performance.now();
        for await (const item of streamJson<LogBatch | LogLine>('logs', query, abort.signal)) {
          for (const line of expandItem(item)) queue.push(line);
          if (performance.now() - slice > SLICE_MS) {
            await pause();
            slice = performance.now();
          }
          if (queue.length > MAX_LINES * 2) queue = queue.slice(-MAX_LINES);
          if (!frame) frame = requestAnimationFrame(draw);
        }
        setPhase('ended');
      } catch (e) {
        if (abort.signal.aborted) return;
        setError(e instanceof ApiError ? e : new ApiError(0, 'internal', String(e)));
        setPhase('failed');
      }
    })();
    (el as HTMLDivElement & { irisSearch?: () => void }).irisSearch = () => {
      for (const { line, node } of buffer.toArray()) node.hidden = !lineMatches(line, searchRef.current);
    };
    return () => {
      abort.abort();
      if (frame) cancelAnimationFrame(frame);
    };
  }, [target, follow, tail, since]);

  useEffect(() => {
    searchRef.current = search;
    (box.current as (HTMLDivElement & { irisSearch?: () => void }) | null)?.irisSearch?.();
  }, [search]);

  const set = (key: string, value: string) => navigate(hashOf('logs', target, { ...params, [key]: value }), true);
  return (
    <div data-view="logs" data-target={target}>
      <div class="bar">
        <h1>
          Logs of <a href={jobHash(target.replace(/\/task-\d+$/, ''))}>{target}</a>
        </h1>
        <span class={`phase phase-${phase}`} data-log-phase={phase}>
          {phase === 'following' ? 'following live' : phase}
        </span>
      </div>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <input
          type="search"
          placeholder="search"
          value={search}
          onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
          data-log-search
        />
        <label>
          <input type="checkbox" checked={showTime} onChange={() => setShowTime(!showTime)} data-log-time /> time
        </label>
        <label>
          <input type="checkbox" checked={showTask} onChange={() => setShowTask(!showTask)} data-log-task /> task
        </label>
        <label>
          <input type="checkbox" checked={follow} onChange={() => set('follow', follow ? '0' : '')} /> follow
        </label>
        <label>
          since{' '}
          <input
            size={8}
            placeholder="10m"
            value={since}
            onChange={(e) => set('since', (e.target as HTMLInputElement).value.trim())}
            data-log-since
          />
        </label>
        <label>
          tail{' '}
          <input
            size={6}
            placeholder="all"
            value={tail}
            onChange={(e) => set('tail', (e.target as HTMLInputElement).value.trim())}
            data-log-tail
          />
        </label>
      </form>
      <ErrorBox error={error} what="logs" />
      <p class="muted small">
        {`${counts.shown} ${counts.shown === 1 ? 'line' : 'lines'}`}
        {counts.dropped > 0 ? ` (the ${counts.dropped} oldest dropped: the page keeps the last ${MAX_LINES})` : ''}
      </p>
      <div ref={box} class={`log${showTime ? '' : ' no-time'}${showTask ? '' : ' no-task'}`} data-log role="log" />
    </div>
  );
}
