/**
 * E2E: a task cannot give its children more than its own job has — no root container user, no
 * host network (issue 12) — while the owner's CLI may ask for both. Admission refuses before any
 * engine is asked, so this needs no Docker engine.
 */
import { describe, expect, it } from 'vitest';
import { withCluster } from './harness.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 2, memory: 2GiB}
`;

describe('container user and network chosen from inside a task', () => {
  const c = withCluster(CONFIG);

  it('a task asking for a root container or the host network for a child is refused (exit 4)', async () => {
    const script = c.script(
      'escalate.sh',
      [
        'iris submit --name rooted --image busybox --user-in-container 0 -- true; echo "root=$?"',
        'iris submit --name hosted --image busybox --network host -- true; echo "host=$?"',
      ].join('\n'),
    );
    const r = await c.iris(['run', '--name', 'parent', '--cpu', '0.1', '--', 'sh', script]);
    expect(r.code).toBe(0);
    const text = (await c.logs('/parent/task-0')).map((l) => l.text).join('\n');
    expect(text).toContain('root=4');
    expect(text).toContain('--user-in-container "0": a task may not start root containers');
    expect(text).toContain('host=4');
    expect(text).toContain('network "host": a task may not give its children the host network');
    expect((await c.jobs()).map((j) => j.name).sort()).toEqual(['/parent']);
  });
});
