/**
 * The ink view of `iris watch`: a pure function of a snapshot, the terminal's rows and the scroll
 * offset. The lines come from layout.ts (at most rows - 1 of them); each is one Text cut at the
 * terminal width instead of wrapping, so a frame never takes more rows than it has lines.
 */
import { Box, Text } from 'ink';
import type { WatchSnapshot } from './snapshot.js';
import { fitFrame, QUIT_HINT } from './layout.js';

export interface WatchViewProps {
  snapshot: WatchSnapshot | null;
  error?: string | null;
  /** Terminal rows (default 24). */
  rows?: number;
  /** First body line shown; clamped by the layout. */
  offset?: number;
}

export function WatchView({ snapshot, error, rows = 24, offset = 0 }: WatchViewProps) {
  if (!snapshot) {
    return (
      <Box flexDirection="column">
        <Text wrap="truncate-end">{error ? `iris watch: ${error}` : 'connecting to the iris cluster…'}</Text>
        <Text dimColor wrap="truncate-end">
          {QUIT_HINT}
        </Text>
      </Box>
    );
  }
  const { lines } = fitFrame(snapshot, { rows, offset, error });
  const last = lines.length - 1;
  return (
    <Box flexDirection="column">
      {lines.map((line, i) => (
        <Text
          // biome-ignore lint/suspicious/noArrayIndexKey: a line is its row on the screen; rows have no identity
          key={i}
          wrap="truncate-end"
          bold={i === 0}
          dimColor={i === last}
          color={error && i === 2 ? 'red' : undefined}
        >
          {line === '' ? ' ' : line}
        </Text>
      ))}
    </Box>
  );
}
