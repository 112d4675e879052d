/** The Markdown tables of docs/simulate.md that the study tests regenerate, read between their markers. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DOC = fileURLToPath(new URL('../../docs/simulate.md', import.meta.url));

/** The table between `<!-- MARKER:start -->` and `<!-- MARKER:end -->`, as rows of trimmed cells. */
export function documentedTable(marker: string): string[][] {
  const text = readFileSync(DOC, 'utf8');
  const match = new RegExp(`<!-- ${marker}:start -->\\n([\\s\\S]*?)\\n<!-- ${marker}:end -->`).exec(text);
  if (!match) throw new Error(`docs/simulate.md has no ${marker} between the markers`);
  return match[1]!
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) =>
      line
        .trim()
        .replace(/^\||\|$/g, '')
        .split('|')
        .map((cell) => cell.trim()),
    );
}
