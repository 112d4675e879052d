/**
 * What the cluster tells its watchers (`iris watch`, `logs -f`, clients of /v1/events): one
 * typed event per change of a job, task (or one of its attempts), worker or endpoint
 * (src/server/event-feed.ts states what a stream guarantees).
 */
export interface ClusterEvent {
  type: 'job' | 'task' | 'worker' | 'endpoint' | 'cluster';
  name: string;
  state?: string;
  /** The state this stream last knew for the entity; absent when it is new to the stream. */
  previous?: string;
  /** Why the job, task or attempt is in its state (a pending reason, a failure cause), when known. */
  reason?: string;
  /** Set on events of one attempt of a task (`name` is the task); its state is the attempt's. */
  attempt?: number;
  time: number;
}
