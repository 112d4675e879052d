/**
 * The dashboard's own small answers: security headers on every response, the HTML pages of a
 * refusal (no session, a used or expired login link) and of a missing page build, and the files
 * of the page's build (dist/web).
 *
 * Guarantees:
 * - every response carries SECURITY_HEADERS: a Content-Security-Policy of `default-src 'self'`
 *   (no inline script, no other host, no framing), nosniff, no referrer, X-Frame-Options DENY;
 *   HTML and API answers also `Cache-Control: no-store`;
 * - the refusal pages hold no script and no value from the request;
 * - a build file is served only from the build folder: its name is a plain file name (the gate
 *   checked it) joined to the folder, resolved, and read only when it still lies directly in the
 *   folder; a missing build says so (503) with how to build it.
 */
import type { ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

export const NO_STORE: Readonly<Record<string, string>> = { 'cache-control': 'no-store' };

/** dist/web, next to this module's dist/server/dashboard once built. */
export const DEFAULT_WEB_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'web');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A small page with a title and lines of text (escaped). */
export function htmlPage(title: string, lines: readonly string[]): string {
  const body = lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n');
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>\n` +
    `<body><h1>${escapeHtml(title)}</h1>\n${body}\n</body></html>\n`
  );
}

export function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': type,
    'content-length': String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(body);
}

export const LOGIN_REFUSED = htmlPage('iris dashboard: this login link is not valid', [
  'The link was used already, has expired (links are good for 5 minutes) or was never issued.',
  'Run `iris dashboard` on the machine of the cluster for a new link.',
]);

export const NO_SESSION = htmlPage('iris dashboard: log in first', [
  'This dashboard needs a login.',
  'Run `iris dashboard` on the machine of the cluster: it prints (and opens) a link that logs this browser in.',
]);

/** Serve `file` (a plain name) of the build in `root`; the page itself is `index.html`. */
export async function sendBuildFile(res: ServerResponse, root: string, file: string): Promise<void> {
  const folder = path.resolve(root);
  const full = path.resolve(folder, file);
  if (path.dirname(full) !== folder) {
    send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
    return;
  }
  let body: Buffer;
  try {
    body = await readFile(full);
  } catch {
    if (file === 'index.html') {
      const page = htmlPage('iris dashboard: the page is not built', [
        `There is no ${full}.`,
        'Build iris with `npm run build` (it writes the page to dist/web), then reload.',
      ]);
      send(res, 503, 'text/html; charset=utf-8', page, { ...NO_STORE });
    } else send(res, 404, 'text/plain; charset=utf-8', `no such file: ${file}\n`);
    return;
  }
  const type = TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
  send(res, 200, type, body, file === 'index.html' ? { ...NO_STORE } : { 'cache-control': 'no-cache' });
}
