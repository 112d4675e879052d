#!/usr/bin/env node
// The line-length half of `npm run lint` (the other half is `biome ci`, whose lineWidth is the
// same 120): no line of the source under src/, test/, scripts/, bench/ and bin/ is longer than
// 120 characters. The formatter breaks code; it cannot break a long string, comment or template,
// which is what this check finds.
//   node scripts/check-lines.js            every tracked or new (not ignored) source file there
//   node scripts/check-lines.js PATH…      only these files or folders
// Guarantees:
// - Prints `FILE:LINE: N characters` for every line over the limit, then one summary line, and
//   exits 1 when there is any; exits 0 and prints the summary otherwise.
// - Two kinds of line are allowed to be longer: one that is long only because of URLs (it fits
//   once its URLs are left out: a URL cannot be broken), and a row of a Markdown-like table in a
//   comment (`// | a | b |`, ` * | a | b |`, `# | a | b |`).
// - Characters are Unicode code points (`→` and `µ` count one); a tab counts one.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const LIMIT = 120;
const DIRS = ['src', 'test', 'scripts', 'bench', 'bin'];
const SOURCE = /\.(?:ts|tsx|mts|cts|js|mjs|cjs|sh|go)$/;
const SKIP_DIRS = new Set(['node_modules', 'dist', '.cache', 'coverage', '.git']);
const URL = /\b(?:https?|ftp|file):\/\/[^\s'"`<>)\]]+/g;
const TABLE_ROW = /^\s*(?:\/\/|\/\*+|\*|#)\s*\|/;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Code points of a line, as an editor's column counts them. */
const width = (line) => [...line].length;

/** Whether a line over the limit is one of the allowed kinds. */
export function allowed(line) {
  if (TABLE_ROW.test(line)) return true;
  const withoutUrls = line.replace(URL, '');
  return withoutUrls !== line && width(withoutUrls) <= LIMIT;
}

/** The lines of `text` over the limit that are not allowed: [{ line (1-based), width }]. */
export function longLines(text) {
  const found = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
    if (line.length <= LIMIT) continue; // code units >= code points: most lines stop here
    const w = width(line);
    if (w > LIMIT && !allowed(line)) found.push({ line: i + 1, width: w });
  }
  return found;
}

const isSource = (file) => SOURCE.test(file) || file.startsWith('bin/');

/** Files under `dirs` (relative to the root): from git when it answers, else a walk of the tree. */
function filesUnder(dirs) {
  const git = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...dirs], {
    cwd: root,
    encoding: 'utf8',
  });
  if (git.status === 0) {
    return [...new Set(git.stdout.split('\0').filter(Boolean))].filter((f) => existsSync(path.join(root, f)));
  }
  const out = [];
  const walk = (rel) => {
    const full = path.join(root, rel);
    if (!existsSync(full)) return;
    if (!statSync(full).isDirectory()) {
      out.push(rel);
      return;
    }
    for (const entry of readdirSync(full)) if (!SKIP_DIRS.has(entry)) walk(path.join(rel, entry));
  };
  for (const dir of dirs) walk(dir);
  return out;
}

function main(args) {
  const dirs = args.length > 0 ? args.map((a) => path.relative(root, path.resolve(a))) : DIRS;
  const files = filesUnder(dirs).filter(isSource).sort();
  let count = 0;
  for (const file of files) {
    for (const { line, width: w } of longLines(readFileSync(path.join(root, file), 'utf8'))) {
      console.log(`${file}:${line}: ${w} characters`);
      count++;
    }
  }
  const where = `${files.length} files of ${dirs.join(', ')}`;
  console.log(`check-lines: ${count} line${count === 1 ? '' : 's'} over ${LIMIT} characters in ${where}`);
  return count === 0 ? 0 : 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exit(main(process.argv.slice(2)));
}
