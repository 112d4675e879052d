/**
 * The FakeRuntime's script language: a small subset of POSIX sh, parsed into a tree.
 *
 * Supported: commands separated by `;` or newlines, `cmd &` (background), `while LIST; do LIST;
 * done`, single and double quotes, backslash escapes, `$NAME`, `${NAME}`, `$$`, `$!`, `$?`,
 * `$((arithmetic))`, and the redirections `>&2`, `1>&2`, `2>&1`, `N>/dev/null`. Expansions are
 * not field-split. Anything else is a syntax error, so a script the fake cannot run fails loudly
 * instead of doing something else.
 */

export type Part = { kind: 'text'; text: string } | { kind: 'var'; name: string } | { kind: 'arith'; expr: string };
export interface Word {
  parts: Part[];
  quoted: boolean;
}

/** Where a command's stdout (1) and stderr (2) go: a stream tag or nowhere. */
export interface Redirect {
  fd: 1 | 2;
  to: 'o' | 'e' | null;
}

export type Command =
  | { kind: 'simple'; words: Word[]; redirects: Redirect[] }
  | { kind: 'while'; cond: Script; body: Script };

export type Script = Array<{ command: Command; background: boolean }>;

type Token = { kind: 'word'; word: Word } | { kind: 'op'; op: ';' | '&' } | { kind: 'redirect'; redirect: Redirect };

export class ScriptError extends Error {}

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let parts: Part[] = [];
  let text = '';
  let quoted = false;
  let inWord = false;
  const flushText = () => {
    if (text !== '') parts.push({ kind: 'text', text });
    text = '';
  };
  const endWord = () => {
    flushText();
    if (inWord) tokens.push({ kind: 'word', word: { parts, quoted } });
    parts = [];
    quoted = false;
    inWord = false;
  };
  let i = 0;
  /** Reads a `$…` expansion starting at src[i] === '$'; returns the part and the next index. */
  const dollar = (at: number): [Part, number] | null => {
    const next = src[at + 1];
    if (src.startsWith('$((', at)) {
      const end = src.indexOf('))', at + 3);
      if (end < 0) throw new ScriptError('unterminated $((');
      return [{ kind: 'arith', expr: src.slice(at + 3, end) }, end + 2];
    }
    if (next === '{') {
      const end = src.indexOf('}', at + 2);
      if (end < 0) throw new ScriptError('unterminated ${');
      return [{ kind: 'var', name: src.slice(at + 2, end) }, end + 1];
    }
    if (next === '$' || next === '!' || next === '?') return [{ kind: 'var', name: next }, at + 2];
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(at + 1));
    return m ? [{ kind: 'var', name: m[0] }, at + 1 + m[0].length] : null;
  };
  while (i < src.length) {
    const c = src[i]!;
    if (c === ' ' || c === '\t') {
      endWord();
      i++;
    } else if (c === '\n' || c === ';') {
      endWord();
      tokens.push({ kind: 'op', op: ';' });
      i++;
    } else if (c === '&') {
      if (src[i + 1] === '&') throw new ScriptError('"&&" is not supported');
      endWord();
      tokens.push({ kind: 'op', op: '&' });
      i++;
    } else if (c === '|') {
      throw new ScriptError('pipes are not supported');
    } else if (c === '>') {
      // An unquoted single digit right before '>' is the file descriptor.
      flushText();
      let fd: 1 | 2 = 1;
      const only = parts.length === 1 && parts[0]!.kind === 'text' ? parts[0]!.text : null;
      if (inWord && !quoted && (only === '1' || only === '2')) {
        fd = Number(only) as 1 | 2;
        parts = [];
        inWord = false;
      }
      endWord();
      const rest = src.slice(i + 1);
      const dup = /^&([12])/.exec(rest);
      const devNull = /^\s*\/dev\/null/.exec(rest);
      if (dup) {
        tokens.push({ kind: 'redirect', redirect: { fd, to: dup[1] === '1' ? 'o' : 'e' } });
        i += 1 + dup[0].length;
      } else if (devNull) {
        tokens.push({ kind: 'redirect', redirect: { fd, to: null } });
        i += 1 + devNull[0].length;
      } else {
        throw new ScriptError('only >&1, >&2 and >/dev/null redirections are supported');
      }
    } else if (c === "'") {
      const end = src.indexOf("'", i + 1);
      if (end < 0) throw new ScriptError('unterminated single quote');
      text += src.slice(i + 1, end);
      inWord = quoted = true;
      i = end + 1;
    } else if (c === '"') {
      inWord = quoted = true;
      i++;
      while (i < src.length && src[i] !== '"') {
        if (src[i] === '\\' && i + 1 < src.length && '"\\$`'.includes(src[i + 1]!)) {
          text += src[i + 1];
          i += 2;
        } else if (src[i] === '$' && dollar(i)) {
          const [part, next] = dollar(i)!;
          flushText();
          parts.push(part);
          i = next;
        } else {
          text += src[i];
          i++;
        }
      }
      if (i >= src.length) throw new ScriptError('unterminated double quote');
      i++;
    } else if (c === '\\') {
      inWord = true;
      if (src[i + 1] !== '\n') text += src[i + 1] ?? '';
      i += 2;
    } else if (c === '$' && dollar(i)) {
      const [part, next] = dollar(i)!;
      flushText();
      parts.push(part);
      inWord = true;
      i = next;
    } else {
      text += c;
      inWord = true;
      i++;
    }
  }
  endWord();
  return tokens;
}

const keyword = (t: Token | undefined): string | null =>
  t?.kind === 'word' && !t.word.quoted && t.word.parts.length === 1 && t.word.parts[0]!.kind === 'text'
    ? t.word.parts[0]!.text
    : null;

/** Parse a script (the argument of `sh -c`). Throws ScriptError. */
export function parseScript(src: string): Script {
  const tokens = tokenize(src);
  let at = 0;
  const list = (until: ReadonlySet<string>): Script => {
    const out: Script = [];
    for (;;) {
      while (tokens[at]?.kind === 'op' && (tokens[at] as { op: string }).op === ';') at++;
      const t = tokens[at];
      if (!t) return out;
      const kw = keyword(t);
      if (kw !== null && until.has(kw)) return out;
      if (t.kind === 'op') throw new ScriptError(`syntax error near "${t.op}"`);
      const command = kw === 'while' ? whileLoop() : simple();
      let background = false;
      const sep = tokens[at];
      if (sep?.kind === 'op') {
        background = sep.op === '&';
        at++;
      }
      out.push({ command, background });
    }
  };
  const expect = (word: string): void => {
    if (keyword(tokens[at]) !== word) throw new ScriptError(`syntax error: expected "${word}"`);
    at++;
  };
  const whileLoop = (): Command => {
    at++;
    const cond = list(new Set(['do']));
    expect('do');
    const body = list(new Set(['done']));
    expect('done');
    return { kind: 'while', cond, body };
  };
  const simple = (): Command => {
    const words: Word[] = [];
    const redirects: Redirect[] = [];
    for (let t = tokens[at]; t && t.kind !== 'op'; t = tokens[++at]) {
      if (t.kind === 'redirect') redirects.push(t.redirect);
      else words.push(t.word);
    }
    return { kind: 'simple', words, redirects };
  };
  const script = list(new Set());
  if (at < tokens.length) throw new ScriptError(`syntax error near "${keyword(tokens[at]) ?? '?'}"`);
  return script;
}

/** Evaluate `$((…))`: integers, variables, + - * / % and parentheses. */
export function evalArith(expr: string, lookup: (name: string) => string): number {
  const src = expr.replace(/\$?([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => String(Number(lookup(name) || 0)));
  let i = 0;
  const peek = (): string => {
    while (src[i] === ' ') i++;
    return src[i] ?? '';
  };
  const atom = (): number => {
    const c = peek();
    if (c === '(') {
      i++;
      const v = sum();
      if (peek() !== ')') throw new ScriptError(`bad arithmetic: ${expr}`);
      i++;
      return v;
    }
    if (c === '-') {
      i++;
      return -atom();
    }
    const m = /^\d+/.exec(src.slice(i));
    if (!m) throw new ScriptError(`bad arithmetic: ${expr}`);
    i += m[0].length;
    return Number(m[0]);
  };
  const product = (): number => {
    let v = atom();
    for (let c = peek(); c === '*' || c === '/' || c === '%'; c = peek()) {
      i++;
      const r = atom();
      if (c !== '*' && r === 0) throw new ScriptError('division by zero');
      v = c === '*' ? v * r : c === '/' ? Math.trunc(v / r) : v % r;
    }
    return v;
  };
  const sum = (): number => {
    let v = product();
    for (let c = peek(); c === '+' || c === '-'; c = peek()) {
      i++;
      v = c === '+' ? v + product() : v - product();
    }
    return v;
  };
  const v = sum();
  if (peek() !== '') throw new ScriptError(`bad arithmetic: ${expr}`);
  return v;
}
