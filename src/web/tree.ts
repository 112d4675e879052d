/**
 * The jobs view's tree: rows of jobs in tree order (a parent, then its children, each level by
 * submission time then name), indented by depth below the shown root. Pure.
 *
 * Guarantees:
 * - every job listed appears exactly once (a job whose parent is not listed is a root of its own);
 * - with a zoom root only that job and the jobs below it (by name: `/a` covers `/a` and `/a/…`)
 *   are rows, the root at depth 0;
 * - with filters, a row is a job that matches every filter, or an ancestor of one kept to show where it
 *   sits (`context: true`); jobs that neither match nor lead to a match are left out.
 */
import type { JobSummary } from '../api/types.js';

export interface JobFilters {
  /** Job states, any of which matches; empty: every state. */
  states: string[];
  /** Exact user; '' for any. */
  user: string;
  /** A name prefix (`/train` matches `/train`, `/train/a` and `/train2`); '' for any. */
  prefix: string;
}

export interface TreeRow {
  job: JobSummary;
  /** Depth below the shown root (0 for a root). */
  depth: number;
  /** How many jobs listed are directly below it. */
  children: number;
  /** Shown only because a job below it matches the filters. */
  context: boolean;
}

export const NO_FILTERS: JobFilters = { states: [], user: '', prefix: '' };

/** `/a/b` is `root` itself or below it. */
export function isWithin(name: string, root: string): boolean {
  if (!root || root === '/') return true;
  return name === root || name.startsWith(`${root}/`);
}

/** The parent a job name implies (`/a/b` → `/a`); null for a top-level job. */
export function parentOf(name: string): string | null {
  const cut = name.lastIndexOf('/');
  return cut > 0 ? name.slice(0, cut) : null;
}

export function matches(job: JobSummary, filters: JobFilters): boolean {
  if (filters.states.length > 0 && !filters.states.includes(job.state)) return false;
  if (filters.user && job.user !== filters.user) return false;
  if (filters.prefix) {
    const prefix = filters.prefix.startsWith('/') ? filters.prefix : `/${filters.prefix}`;
    if (!job.name.startsWith(prefix)) return false;
  }
  return true;
}

const byAge = (a: JobSummary, b: JobSummary) =>
  a.submittedAt - b.submittedAt || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The rows of `jobs` under `root` ('' for all) that match `filters`, in tree order. */
export function buildTree(jobs: readonly JobSummary[], root = '', filters: JobFilters = NO_FILTERS): TreeRow[] {
  const shown = jobs.filter((j) => isWithin(j.name, root));
  const byName = new Map(shown.map((j) => [j.name, j]));
  const kids = new Map<string, JobSummary[]>();
  const roots: JobSummary[] = [];
  for (const job of shown) {
    const parent = job.parent ?? parentOf(job.name);
    const isRoot = job.name === root || parent === null || !byName.has(parent);
    if (isRoot) roots.push(job);
    else {
      const list = kids.get(parent as string);
      if (list) list.push(job);
      else kids.set(parent as string, [job]);
    }
  }
  // Which jobs to keep: a match, or an ancestor of one (computed bottom-up, without recursion).
  const keep = new Map<string, boolean>();
  const filtering = filters.states.length > 0 || filters.user !== '' || filters.prefix !== '';
  const order: JobSummary[] = [];
  const stack = [...roots].sort(byAge).reverse();
  const depthOf = new Map<string, number>();
  for (const r of roots) depthOf.set(r.name, 0);
  while (stack.length > 0) {
    const job = stack.pop() as JobSummary;
    order.push(job);
    const below = (kids.get(job.name) ?? []).sort(byAge);
    for (let i = below.length - 1; i >= 0; i--) {
      depthOf.set(below[i].name, (depthOf.get(job.name) ?? 0) + 1);
      stack.push(below[i]);
    }
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const job = order[i];
    const hit = !filtering || matches(job, filters);
    const viaChild = (kids.get(job.name) ?? []).some((k) => keep.get(k.name));
    keep.set(job.name, hit || viaChild);
  }
  const rows: TreeRow[] = [];
  for (const job of order) {
    if (!keep.get(job.name)) continue;
    rows.push({
      job,
      depth: depthOf.get(job.name) ?? 0,
      children: kids.get(job.name)?.length ?? 0,
      context: filtering && !matches(job, filters),
    });
  }
  return rows;
}

/** The zoom path of `root`: `/a/b` → [`/a`, `/a/b`]. */
export function crumbs(root: string): string[] {
  const parts = root.split('/').filter(Boolean);
  return parts.map((_, i) => `/${parts.slice(0, i + 1).join('/')}`);
}

/** Filters from route params (`state=RUNNING,PENDING&user=alice&prefix=/train`). */
export function filtersOf(params: Record<string, string>): JobFilters {
  const states = (params.state ?? '')
    .split(',')
    .map((s) => s.trim().toUpperCase().replace(/-/g, '_'))
    .filter(Boolean);
  return { states, user: params.user ?? '', prefix: params.prefix ?? '' };
}
