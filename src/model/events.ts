/**
 * What the cluster tells its watchers (`iris watch`, `logs -f`, clients of /v1/events): one
 * typed event per state change of a job, task, worker or endpoint.
 */
export interface ClusterEvent {
  type: 'job' | 'task' | 'worker' | 'endpoint' | 'cluster';
  name: string;
  state?: string;
  time: number;
}
