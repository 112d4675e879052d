/**
 * The tar archive that puts a container's task token in place (ContainerSpec.tokenFile), written
 * by the engine into the created container before it starts (PUT /containers/{id}/archive at
 * `/`). Pure. The engine extracts as root and keeps the archive's owners and modes, so:
 * - the directory (the file's parent, one level under `/`) is root-owned, group `gid`, mode 0750;
 * - the file is root-owned, group `gid`, mode 0440, holding the token and a newline.
 * The container's processes get `gid` as a supplementary group (create-options.ts GroupAdd), so
 * they read it whatever their user; a host process of the same uid lacks the group and cannot,
 * not even through /proc/PID/root. A plain ustar archive: numbers in octal, so `gid` must stay
 * below 8^7 (checked).
 */
import { posix } from 'node:path';

const BLOCK = 512;
/** The largest id a ustar header holds in its 7 octal digits. */
export const MAX_USTAR_ID = 0o7777777;

function header(name: string, mode: number, gid: number, size: number, type: '0' | '5'): Buffer {
  const block = Buffer.alloc(BLOCK);
  const put = (offset: number, length: number, text: string) => block.write(text, offset, length, 'ascii');
  const octal = (offset: number, length: number, value: number) => put(offset, length, value.toString(8).padStart(length - 1, '0'));
  put(0, 100, name);
  octal(100, 8, mode);
  octal(108, 8, 0);
  octal(116, 8, gid);
  octal(124, 12, size);
  octal(136, 12, 0);
  put(148, 8, '        ');
  put(156, 1, type);
  put(257, 6, 'ustar');
  put(263, 2, '00');
  let sum = 0;
  for (const byte of block) sum += byte;
  put(148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return block;
}

/** The archive holding `dir/` and `dir/file` for a token file at an absolute `path` one level under `/` (`/.iris-task/token`). */
export function tokenArchive(path: string, token: string, gid: number): Buffer {
  const dir = posix.dirname(path);
  if (!path.startsWith('/') || posix.dirname(dir) !== '/' || dir === '/') throw new Error(`tokenArchive: ${path} is not a file one directory under /`);
  if (!Number.isInteger(gid) || gid < 0 || gid > MAX_USTAR_ID) throw new Error(`tokenArchive: gid ${gid} does not fit a ustar header`);
  if (!/^[A-Za-z0-9_-]+$/.test(token)) throw new Error('tokenArchive: a token is base64url text');
  const name = `${dir.slice(1)}/`;
  const content = Buffer.from(`${token}\n`, 'ascii');
  const padding = Buffer.alloc((BLOCK - (content.length % BLOCK)) % BLOCK);
  return Buffer.concat([
    header(name, 0o750, gid, 0, '5'),
    header(`${name}${posix.basename(path)}`, 0o440, gid, content.length, '0'),
    content,
    padding,
    Buffer.alloc(2 * BLOCK),
  ]);
}
