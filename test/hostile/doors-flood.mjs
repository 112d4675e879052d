// A flood of idle connections to a door, as a hostile task or local user makes it (test/hostile/doors.test.ts):
//   node doors-flood.mjs TARGET N [LOCAL_ADDRESS]
// TARGET is a unix socket path or HOST:PORT. It connects until N connections were made (a full listen
// queue, EAGAIN, is retried), never sends a byte, keeps every connection the server leaves open, then
// prints one JSON line {made, open, closedByServer, ms} and stays until its stdin closes.
import { connect } from 'node:net';

const [target, count, localAddress] = [process.argv[2], Number(process.argv[3]), process.argv[4]];
const tcp = /^(.*):(\d+)$/.exec(target);
const where = tcp
  ? { host: tcp[1], port: Number(tcp[2]), ...(localAddress ? { localAddress } : {}) }
  : { path: target };
let made = 0;
let open = 0;
let closedByServer = 0;
const errors = {};
const sockets = new Set();

function one() {
  return new Promise((resolve) => {
    const socket = connect(where);
    let connected = false;
    socket.on('connect', () => {
      connected = true;
      made++;
      open++;
      sockets.add(socket);
      resolve(true);
    });
    socket.on('error', (error) => {
      errors[error.code] = (errors[error.code] ?? 0) + 1;
      if (!connected) resolve(false);
    });
    socket.on('close', () => {
      sockets.delete(socket);
      if (!connected) return;
      open--;
      closedByServer++;
    });
  });
}

const started = Date.now();
while (made < count && Date.now() - started < 60_000) {
  const batch = Math.min(200, count - made);
  const results = await Promise.all(Array.from({ length: batch }, one));
  if (results.includes(false)) await new Promise((resolve) => setTimeout(resolve, 2));
}
process.stdout.write(`${JSON.stringify({ made, open, closedByServer, errors, ms: Date.now() - started })}\n`);
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));
