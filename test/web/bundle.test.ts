// The built page (dist/web, written by scripts/web.js in `npm run build` and `npm test`): what the
// dashboard server serves must work under its CSP (`default-src 'self'`) and without any network.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const web = path.join(root, 'dist', 'web');
const read = (file: string) => readFileSync(path.join(web, file), 'utf8');
/** XML namespaces name no host the browser fetches. */
const NAMESPACES = new Set([
  'http://www.w3.org/1998/Math/MathML',
  'http://www.w3.org/1999/xhtml',
  'http://www.w3.org/2000/svg',
]);

describe('dist/web', () => {
  it('holds the page, its script, its style and its icon', () => {
    expect(existsSync(web)).toBe(true);
    expect(readdirSync(web).sort()).toEqual(['app.css', 'app.js', 'favicon.svg', 'index.html']);
  });

  it('index.html loads only same-origin files and has no inline script or style', () => {
    const html = read('index.html');
    expect(html).toContain('<script type="module" src="/assets/app.js"></script>');
    expect(html).toContain('<link rel="stylesheet" href="/assets/app.css">');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\bstyle=|\bon[a-z]+=/i);
    expect(html).not.toMatch(/(?:src|href)="(?!\/assets\/)/);
  });

  it('the script and the style name no other host', () => {
    for (const file of ['app.js', 'app.css']) {
      const urls = read(file).match(/(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}[^\s"'`)]*/gi) ?? [];
      expect(
        urls.filter((url) => !NAMESPACES.has(url)),
        file,
      ).toEqual([]);
    }
  });

  it("the style holds ours and uPlot's; the script is minified", () => {
    const css = read('app.css');
    expect(css).toContain('--running: #0072b2');
    expect(css).toContain('.uplot');
    expect(read('app.js').split('\n').length).toBeLessThan(50);
  });

  it('the page sets no HTML from data: no innerHTML in src/web', () => {
    const dir = path.join(root, 'src', 'web');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.tsx?$/.test(f));
    for (const file of files) {
      expect(readFileSync(path.join(dir, file), 'utf8'), file).not.toMatch(/innerHTML|dangerouslySetInnerHTML/);
    }
  });
});
