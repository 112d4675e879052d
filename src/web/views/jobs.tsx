/**
 * `#/jobs`: the job tree (GET /v1/jobs), indented by depth, with zoom into a subtree
 * (`#/jobs?root=/a`) and filters by state, user and name prefix kept in the URL.
 * Long lists show their first rows and a button for the rest, so a cluster with 10,000 jobs
 * renders at once.
 */
import { useMemo, useState } from 'preact/hooks';
import type { JobSummary } from '../../api/types.js';
import { getJson } from '../api.js';
import { ErrorBox, Loading, State, StateFilter, Table, TextFilter } from '../components.js';
import { formatAge, formatReason, taskCounts } from '../format.js';
import { navigate, useData, useNow } from '../hooks.js';
import { hashOf, jobHash } from '../route.js';
import { buildTree, crumbs, filtersOf, type TreeRow } from '../tree.js';

const FIRST_ROWS = 500;

function Filters({ params }: { params: Record<string, string> }) {
  const set = (key: string, value: string) => navigate(hashOf('jobs', '', { ...params, [key]: value }), true);
  return (
    <form class="filters" onSubmit={(e) => e.preventDefault()}>
      <StateFilter value={params.state} set={set} extra={<option value="PENDING,RUNNING">active</option>} />
      <TextFilter name="user" value={params.user} placeholder="any" size={10} set={set} live />
      <TextFilter name="prefix" label="name" value={params.prefix} placeholder="/prefix" size={14} set={set} live />
    </form>
  );
}

function Row({ row, now, params }: { row: TreeRow; now: number; params: Record<string, string> }) {
  const { job } = row;
  const counts = taskCounts(job);
  const leaf = job.name.slice(job.name.lastIndexOf('/') + 1);
  return (
    <tr data-job={job.name} class={row.context ? 'context' : ''}>
      <td class="name" style={{ paddingLeft: `${0.5 + row.depth * 1.2}em` }}>
        <a href={jobHash(job.name)} title={job.name}>
          {row.depth === 0 ? job.name : leaf}
        </a>
        {row.children > 0 ? (
          <a class="zoom" href={hashOf('jobs', '', { ...params, root: job.name })} data-zoom={job.name}>
            {`▸ ${row.children} below`}
          </a>
        ) : null}
        {job.reason ? <div class="reason">{formatReason(job.reason, now)}</div> : null}
      </td>
      <td>
        <State state={job.state} />
      </td>
      <td>{job.band ?? '-'}</td>
      <td>{job.user}</td>
      <td class="num">{job.run}</td>
      <td class="num">{counts.running}</td>
      <td class="num">{counts.pending}</td>
      <td class="num">{`${counts.done}/${job.tasks.total}`}</td>
      <td class="num" title={new Date(job.submittedAt).toISOString()}>
        {formatAge(now - job.submittedAt)}
      </td>
    </tr>
  );
}

export function JobsView({ params }: { params: Record<string, string> }) {
  const root = params.root ?? '';
  const { data, error } = useData(
    (signal) => getJson<JobSummary[]>('jobs', { prefix: root || undefined }, signal),
    root,
  );
  const [all, setAll] = useState(false);
  const now = useNow();
  const filters = [params.state ?? '', params.user ?? '', params.prefix ?? ''].join('\n');
  // The tree is built when the jobs or the filters change, not at every tick of the clock.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `filters` names the params the tree reads
  const rows = useMemo(() => (data ? buildTree(data, root, filtersOf(params)) : []), [data, root, filters]);
  const shown = all ? rows : rows.slice(0, FIRST_ROWS);
  const { root: _root, ...rest } = params;
  return (
    <div data-view="jobs">
      <div class="bar">
        <h1>
          <a href={hashOf('jobs', '', rest)}>Jobs</a>
          {crumbs(root).map((name) => (
            <>
              {' / '}
              <a href={hashOf('jobs', '', { ...params, root: name })} data-crumb={name}>
                {name.slice(name.lastIndexOf('/') + 1)}
              </a>
            </>
          ))}
        </h1>
        <Filters params={params} />
      </div>
      <ErrorBox error={error} what="jobs" />
      {data === null && !error ? <Loading /> : null}
      {data !== null && rows.length === 0 ? <p class="muted">No jobs{root ? ` under ${root}` : ''}.</p> : null}
      {rows.length > 0 ? (
        <Table label="jobs">
          <thead>
            <tr>
              <th>job</th>
              <th>state</th>
              <th>band</th>
              <th>user</th>
              <th class="num">run</th>
              <th class="num">running</th>
              <th class="num">pending</th>
              <th class="num">done</th>
              <th class="num">age</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((row) => (
              <Row key={row.job.name} row={row} now={now} params={params} />
            ))}
          </tbody>
        </Table>
      ) : null}
      {shown.length < rows.length ? (
        <button type="button" onClick={() => setAll(true)}>
          {`show all ${rows.length} jobs`}
        </button>
      ) : null}
    </div>
  );
}
