/**
 * The `iris jobs` tree: jobs ordered as a tree by path, each row indented under its parent with
 * box-drawing guides, then state, a task summary, user, age and reason (for an ended job with jobs
 * below it still live and no reason of its own: how many, liveBelowText). A job whose parent is not
 * in the list (filtered out or unknown) is shown as a root with its full path.
 */
import { bandColumn } from './band-column.js';
import type { JobSummary, TaskCounts } from '../api/types.js';
import { PLAIN, type Style } from './colour.js';
import { formatAge, formatReason } from './format.js';
import { renderTable, type Column } from './table.js';

export interface TreeRow {
  job: JobSummary;
  /** Guides plus the label: `├─ eval` or `/train` for a root. */
  label: string;
}

/** Order jobs depth-first by name and compute each row's label. */
export function jobTreeRows(jobs: readonly JobSummary[]): TreeRow[] {
  const byName = new Map(jobs.map((job) => [job.name, job]));
  const children = new Map<string, JobSummary[]>();
  const roots: JobSummary[] = [];
  for (const job of jobs) {
    const parent = job.parent ?? parentOf(job.name);
    if (parent && byName.has(parent)) {
      const list = children.get(parent) ?? [];
      list.push(job);
      children.set(parent, list);
    } else {
      roots.push(job);
    }
  }
  const byNameOrder = (a: JobSummary, b: JobSummary) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const rows: TreeRow[] = [];
  // Depth-first with an explicit stack (children pushed in reverse so they come out in order).
  const stack: Array<{ job: JobSummary; prefix: string; last: boolean; root: boolean }> = [];
  for (const root of roots.sort(byNameOrder).reverse()) stack.push({ job: root, prefix: '', last: true, root: true });
  while (stack.length > 0) {
    const { job, prefix, last, root } = stack.pop()!;
    const leaf = job.name.slice(job.name.lastIndexOf('/') + 1);
    rows.push({ job, label: root ? job.name : `${prefix}${last ? '└─ ' : '├─ '}${leaf}` });
    const kids = (children.get(job.name) ?? []).sort(byNameOrder);
    const nextPrefix = root ? '' : prefix + (last ? '   ' : '│  ');
    for (let i = kids.length - 1; i >= 0; i--)
      stack.push({ job: kids[i]!, prefix: nextPrefix, last: i === kids.length - 1, root: false });
  }
  return rows;
}

function parentOf(name: string): string | null {
  const cut = name.lastIndexOf('/');
  return cut <= 0 ? null : name.slice(0, cut);
}

/**
 * `2 jobs below it still running or pending` for a job that ended while jobs of its subtree had not (a
 * SUCCEEDED parent leaves its descendants running; `iris wait JOB` waits for them, `iris cancel JOB` stops
 * them); null when none. The one text `iris status`, `iris jobs`, `iris wait` and `iris run` show.
 */
export function liveBelowText(job: Pick<JobSummary, 'liveDescendants'>): string | null {
  const n = job.liveDescendants ?? 0;
  return n > 0 ? `${n} job${n === 1 ? '' : 's'} below it still running or pending` : null;
}

/** The REASON cell: the job's reason, else the jobs below an ended job still live (liveBelowText). */
function reasonCell(job: JobSummary, now: number): string {
  return job.reason ? formatReason(job.reason, now) : (liveBelowText(job) ?? '');
}

const SHORT: Record<string, string> = {
  PENDING: 'pending',
  ASSIGNED: 'assigned',
  RUNNING: 'running',
  SUCCEEDED: 'ok',
  FAILED: 'failed',
  TIMEOUT: 'timeout',
  OUT_OF_MEMORY: 'out-of-memory',
  KILLED: 'killed',
  UNSCHEDULABLE: 'unschedulable',
  WORKER_FAILED: 'worker-failed',
  PREEMPTED: 'preempted',
  COSCHED_FAILED: 'cosched-failed',
  CANCELLED: 'cancelled',
};
const ORDER = [
  'RUNNING',
  'ASSIGNED',
  'PENDING',
  'SUCCEEDED',
  'FAILED',
  'TIMEOUT',
  'OUT_OF_MEMORY',
  'PREEMPTED',
  'KILLED',
  'COSCHED_FAILED',
  'CANCELLED',
  'UNSCHEDULABLE',
  'WORKER_FAILED',
];

/** `3/4 ok, 1 running` style summary of a job's tasks. */
export function formatTaskCounts(counts: TaskCounts): string {
  const ok = counts.byState.SUCCEEDED ?? 0;
  const rest = ORDER.filter(
    (state) => state !== 'SUCCEEDED' && (counts.byState[state as keyof TaskCounts['byState']] ?? 0) > 0,
  ).map((state) => `${counts.byState[state as keyof TaskCounts['byState']]} ${SHORT[state]}`);
  return [`${ok}/${counts.total} ok`, ...rest].join(', ');
}

/** `runs`: a RUN column (each job's run id) after JOB, as `iris jobs` shows it; `style`: state colours. */
export function renderJobsTree(
  jobs: readonly JobSummary[],
  now: number,
  options: { runs?: boolean; style?: Style } = {},
): string {
  const style = options.style ?? PLAIN;
  const rows = jobTreeRows(jobs);
  const columns: Column<TreeRow>[] = [
    { header: 'JOB', value: (r) => r.label },
    ...(options.runs ? [{ header: 'RUN', value: (r: TreeRow) => String(r.job.run), right: true }] : []),
    { header: 'STATE', value: (r) => r.job.state, paint: (cell) => style.state(cell) },
    { header: 'TASKS', value: (r) => formatTaskCounts(r.job.tasks) },
    { header: 'USER', value: (r) => r.job.user },
    ...bandColumn(rows, (r) => r.job.band),
    { header: 'AGE', value: (r) => formatAge(r.job.submittedAt, now) },
    { header: 'REASON', value: (r) => reasonCell(r.job, now) },
  ];
  return renderTable(rows, columns, 'no jobs');
}
