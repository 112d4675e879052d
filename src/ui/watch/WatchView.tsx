/** The ink view of `iris watch`: a pure function of a snapshot, built from the plain renderers. */
import { Box, Text } from 'ink';
import type { WatchSnapshot } from './snapshot.js';
import { renderWorkerTasks, summaryLine } from './snapshot.js';
import { renderJobsTree } from '../jobs-tree.js';
import { renderWorkers } from '../cluster.js';
import { formatClock } from '../format.js';

export interface WatchViewProps {
  snapshot: WatchSnapshot | null;
  error?: string | null;
}

/** One Text per line, cut at the terminal width instead of wrapping (tables stay aligned). */
function Lines({ text }: { text: string }) {
  return (
    <>
      {text.split('\n').map((line, i) => (
        <Text key={i} wrap="truncate-end">
          {line === '' ? ' ' : line}
        </Text>
      ))}
    </>
  );
}

export function WatchView({ snapshot, error }: WatchViewProps) {
  if (!snapshot) {
    return <Text>{error ? `iris watch: ${error}` : 'connecting to the iris cluster…'}</Text>;
  }
  const tasks = renderWorkerTasks(snapshot.workers);
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        iris · {formatClock(snapshot.time)} · {summaryLine(snapshot)}
      </Text>
      {error ? <Text color="red">{error}</Text> : null}
      <Box marginTop={1} flexDirection="column">
        <Text bold>Jobs</Text>
        <Lines text={renderJobsTree(snapshot.jobs, snapshot.time)} />
      </Box>
      <Box marginTop={1} flexDirection="column">
        <Text bold>Workers</Text>
        <Lines text={renderWorkers(snapshot.workers)} />
      </Box>
      {tasks ? (
        <Box marginTop={1} flexDirection="column">
          <Text bold>Running tasks</Text>
          <Lines text={tasks} />
        </Box>
      ) : null}
      <Box marginTop={1}>
        <Text dimColor>q or Ctrl-C to quit</Text>
      </Box>
    </Box>
  );
}
