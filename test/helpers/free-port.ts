/**
 * A loopback TCP port nothing listens on right now (the OS picks it, then it is released). A test
 * that then listens there may still race another process for it; the tests using this accept that.
 */
import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
