/**
 * The page's hash routes (`#/jobs`, `#/job/<name>`, `#/logs/<target>`, `#/queue`, `#/workers`,
 * `#/history`), each with optional query parameters after `?` (`#/jobs?root=/a&state=RUNNING`).
 * Pure: parseHash and hashOf are inverses for every route hashOf writes.
 *
 * A job name or log target in a route may be written with or without its leading `/`, and
 * percent-encoded or not: `#/job/a/b`, `#/job//a/b` and `#/job/%2Fa%2Fb` all name `/a/b`.
 * hashOf writes the short form (`#/job/a/b`), each path segment percent-encoded.
 */

export const VIEWS = ['jobs', 'job', 'logs', 'queue', 'workers', 'history'] as const;
export type View = (typeof VIEWS)[number];

export interface Route {
  /** `unknown`: a hash naming no view (the page says so instead of guessing). */
  view: View | 'unknown';
  /**
   * The job name (`job`) or log target (`logs`), with its leading `/`; the hash's path for `unknown`; '' for the
   * other views.
   */
  arg: string;
  params: Record<string, string>;
}

const isView = (v: string): v is View => (VIEWS as readonly string[]).includes(v);

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The route a location hash names; an empty hash is the jobs view, one naming no view is `unknown`. */
export function parseHash(hash: string): Route {
  const body = hash.replace(/^#/, '').replace(/^\//, '');
  const q = body.indexOf('?');
  const path = q < 0 ? body : body.slice(0, q);
  const params: Record<string, string> = {};
  if (q >= 0) for (const [k, v] of new URLSearchParams(body.slice(q + 1))) params[k] = v;
  const slash = path.indexOf('/');
  const head = slash < 0 ? path : path.slice(0, slash);
  const rest = slash < 0 ? '' : path.slice(slash + 1);
  if (!head) return { view: 'jobs', arg: '', params: {} };
  if (!isView(head)) return { view: 'unknown', arg: decode(path), params: {} };
  if (head !== 'job' && head !== 'logs') return { view: head, arg: '', params };
  const name = decode(rest).replace(/^\/+/, '');
  return { view: head, arg: name ? `/${name}` : '', params };
}

/** `#/view[/name][?k=v…]`; params with an empty value are left out. */
export function hashOf(view: View, arg = '', params: Record<string, string | undefined> = {}): string {
  const name = arg.replace(/^\/+/, '').split('/').filter(Boolean).map(encodeURIComponent).join('/');
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') search.set(k, v);
  const qs = search.toString();
  return `#/${view}${name ? `/${name}` : ''}${qs ? `?${qs}` : ''}`;
}

export const jobHash = (name: string): string => hashOf('job', name);
export const logsHash = (target: string): string => hashOf('logs', target);
