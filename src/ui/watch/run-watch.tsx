/** Mounts the live watch view on the terminal and resolves when the user quits. */
import { render } from 'ink';
import type { IrisClient } from '../../client/types.js';
import { WatchApp } from './WatchApp.js';

export async function runWatch(
  client: Pick<IrisClient, 'jobs' | 'workers' | 'events'>,
  options: { all: boolean },
): Promise<void> {
  const instance = render(<WatchApp client={client} all={options.all} interactive={Boolean(process.stdin.isTTY)} />, {
    exitOnCtrlC: true,
  });
  await instance.waitUntilExit();
}
