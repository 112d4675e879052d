#!/usr/bin/env node
// Build the dashboard's page (run by `npm run build` and `npm test` after tsc).
//   node scripts/web.js
// Bundles src/web/main.tsx (TypeScript + TSX for preact, with uPlot) with rolldown into one
// minified dist/web/app.js, writes dist/web/app.css (src/web/styles.css and views.css, then uPlot's own
// uPlot.min.css), dist/web/index.html and dist/web/favicon.svg. The dashboard server
// (src/server/dashboard) serves these files as they are.
// Guarantees:
//   - the page has no inline script or style (the server's CSP is `default-src 'self'`): index.html
//     loads /assets/app.css, /assets/app.js and /assets/favicon.svg and nothing else, and names no other host;
//   - dist/web holds only what this script writes (it is emptied first);
//   - it prints the size of app.js and app.css, raw and gzipped.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const out = join(root, 'dist', 'web');

function fail(message, hint) {
  process.stderr.write(`Error: ${message}\n${hint ? `Hint: ${hint}\n` : ''}`);
  process.exit(1);
}

let rolldown;
try {
  ({ rolldown } = await import('rolldown'));
} catch (error) {
  fail(`cannot load the bundler (rolldown): ${error.message}`, 'run `npm ci` to install the devDependencies');
}

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });

const bundle = await rolldown({
  input: join(root, 'src', 'web', 'main.tsx'),
  platform: 'browser',
  tsconfig: join(root, 'tsconfig.web.json'),
  // the sources import each other as `./x.js` (as the Node build does): that names `./x.ts` or `./x.tsx`
  resolve: { extensionAlias: { '.js': ['.ts', '.tsx', '.js'] } },
  logLevel: 'warn',
});
await bundle.write({ dir: out, format: 'esm', codeSplitting: false, entryFileNames: 'app.js', minify: true });
await bundle.close();

const css = [
  await readFile(join(root, 'src', 'web', 'styles.css'), 'utf8'),
  await readFile(join(root, 'src', 'web', 'views.css'), 'utf8'),
  await readFile(join(root, 'node_modules', 'uplot', 'dist', 'uPlot.min.css'), 'utf8'),
].join('\n');
await writeFile(join(out, 'app.css'), css);

const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>iris dashboard</title>
<link rel="icon" href="/assets/favicon.svg">
<link rel="stylesheet" href="/assets/app.css">
<script type="module" src="/assets/app.js"></script>
</head>
<body>
<div id="app"><noscript>The iris dashboard needs JavaScript.</noscript></div>
</body>
</html>
`;
await writeFile(join(out, 'index.html'), html);
// A small icon, so a browser does not ask for /favicon.ico (a 404 in its console).
const icon =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="#0072B2"/>' +
  '<circle cx="8" cy="8" r="3" fill="#fff"/></svg>\n';
await writeFile(join(out, 'favicon.svg'), icon);

const size = async (file) => {
  const data = await readFile(join(out, file));
  return `${file} ${(data.length / 1024).toFixed(1)} KiB (${(gzipSync(data).length / 1024).toFixed(1)} KiB gzip)`;
};
console.log(`built the dashboard page into ${out}: ${await size('app.js')}, ${await size('app.css')}`);
