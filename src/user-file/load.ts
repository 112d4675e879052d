/**
 * Reading a file a user wrote in YAML or JSON: the config file (src/config/load.ts, after
 * src/config/find.ts has judged it), a pipeline file (`iris submit -f`, src/ui/pipeline-file.ts)
 * and a workload file (`iris simulate`, src/sim/load.ts). The one home of how such a file is
 * read and parsed, and of what its errors say. Guarantees:
 *
 * - at most MAX_USER_FILE_BYTES (16 MiB) is read: a larger file is refused by its size before it
 *   is read, and one that grows meanwhile once the limit is passed (never a whole unbounded file
 *   in one string); only a regular file is read (a FIFO or device is refused, never waited on);
 * - the text is UTF-8, or UTF-16 when the file starts with its byte order mark (a UTF-8 one is
 *   dropped);
 * - the format is the caller's (config's table of extensions), else the file's extension
 *   (formatOf: `.json` is JSON, anything else YAML); a duplicate key is refused in either
 *   (YAML's rule, applied to JSON too);
 * - every error is an IrisError that begins with the file as given (`pipeline.yaml: invalid
 *   YAML: …`); a file that does not exist is not_found (exit 3), anything else invalid_argument
 *   (exit 2). Key paths inside the document are the schema's to name (src/model/schema-errors.ts).
 *
 * Reading is all this module decides: whether a file may be read at all (the config file's
 * ownership rule) is the caller's, checked before.
 */
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import YAML from 'yaml';
import { IrisError, invalid } from '../model/errors.js';

/** The largest file read: 16 MiB (a config or pipeline file is a few KiB, a workload file rarely 1 MiB). */
export const MAX_USER_FILE_BYTES = 16 * 1024 * 1024;

export type UserFileFormat = 'yaml' | 'json';

/** The format of a file by its extension: `.json` (any case) is JSON, anything else YAML. */
export function formatOf(file: string): UserFileFormat {
  return path.extname(file).toLowerCase() === '.json' ? 'json' : 'yaml';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function tooLarge(file: string, bytes: number): IrisError {
  return invalid(`${file}: too large (${bytes} bytes; a file iris reads is at most 16 MiB)`);
}

function decode(buffer: Buffer): string {
  if (buffer[0] === 0xff && buffer[1] === 0xfe) return new TextDecoder('utf-16le').decode(buffer);
  if (buffer[0] === 0xfe && buffer[1] === 0xff) return new TextDecoder('utf-16be').decode(buffer);
  return new TextDecoder('utf-8').decode(buffer);
}

/** The bytes of an open regular file, at most MAX_USER_FILE_BYTES. */
async function readBounded(handle: FileHandle, file: string): Promise<Buffer> {
  const info = await handle.stat();
  if (!info.isFile()) throw invalid(`${file}: not a regular file`);
  if (info.size > MAX_USER_FILE_BYTES) throw tooLarge(file, info.size);
  // One byte more than the size, so a file that grew meanwhile is noticed.
  let buffer = Buffer.allocUnsafe(info.size + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (length > MAX_USER_FILE_BYTES) throw tooLarge(file, length);
      const bigger = Buffer.allocUnsafe(Math.min(buffer.length * 2, MAX_USER_FILE_BYTES + 1));
      buffer.copy(bigger, 0, 0, length);
      buffer = bigger;
    }
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
    if (bytesRead === 0) return buffer.subarray(0, length);
    length += bytesRead;
  }
}

/** The text of a user file (see the header for the limits and the errors). */
export async function readUserText(file: string): Promise<string> {
  let handle: FileHandle;
  try {
    // Non-blocking: opening a FIFO must not wait for a writer (it is refused below).
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new IrisError('not_found', `${file}: no such file`);
    throw invalid(`${file}: cannot read: ${code ?? messageOf(error)}`);
  }
  try {
    return decode(await readBounded(handle, file));
  } catch (error) {
    if (error instanceof IrisError) throw error;
    throw invalid(`${file}: cannot read: ${(error as NodeJS.ErrnoException).code ?? messageOf(error)}`);
  } finally {
    await handle.close();
  }
}

/** Where a key of a JSON object repeats an earlier key of the same object (`text` is valid JSON). */
function duplicateJsonKey(text: string): { key: string; at: number } | null {
  // One entry per open object (its keys) or array (null); a string right after `{` or an
  // object's `,` is a key.
  const open: Array<Set<string> | null> = [];
  let keyNext = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (keyNext) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        const keys = open[open.length - 1]!;
        if (keys.has(key)) return { key, at: i };
        keys.add(key);
        keyNext = false;
      }
      i = end;
    } else if (c === '{') {
      open.push(new Set());
      keyNext = true;
    } else if (c === '[') {
      open.push(null);
    } else if (c === '}' || c === ']') {
      open.pop();
    } else if (c === ',') {
      keyNext = open[open.length - 1] instanceof Set;
    }
  }
  return null;
}

/** `line L, column C` (1-based) of an offset in `text`. */
function lineAndColumn(text: string, at: number): string {
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  return `line ${line}, column ${at - before.lastIndexOf('\n')}`;
}

/**
 * The document in `text`, read as `format`; `file` begins every error, `hint` (where the format
 * is described) goes with a syntax error.
 */
export function parseUserText(text: string, file: string, format: UserFileFormat, hint?: string): unknown {
  if (format === 'json') {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (error) {
      throw invalid(`${file}: invalid JSON: ${messageOf(error)}`, hint);
    }
    const duplicate = duplicateJsonKey(text);
    if (duplicate) {
      const where = lineAndColumn(text, duplicate.at);
      throw invalid(`${file}: invalid JSON: duplicate key ${JSON.stringify(duplicate.key)} at ${where}`, hint);
    }
    return data;
  }
  // The library's own duplicate-key check compares each key with every earlier key of its map
  // (quadratic: 16 s for a 10,000-stage pipeline); it is off, and duplicateYamlKey does it in one pass.
  const lines = new YAML.LineCounter();
  const doc = YAML.parseDocument(text, { prettyErrors: true, uniqueKeys: false, lineCounter: lines });
  if (doc.errors.length > 0) throw invalid(`${file}: invalid YAML: ${doc.errors[0]!.message}`, hint);
  const duplicate = duplicateYamlKey(doc);
  if (duplicate !== null) {
    const { line, col } = lines.linePos(duplicate);
    const shown = text.slice(lines.lineStarts[line - 1], lines.lineStarts[line] ?? text.length).replace(/\r?\n$/, '');
    const where = `at line ${line}, column ${col}:\n\n${shown}\n${' '.repeat(col - 1)}^\n`;
    throw invalid(`${file}: invalid YAML: Map keys must be unique ${where}`, hint);
  }
  for (const warning of doc.warnings) process.emitWarning(warning);
  try {
    return doc.toJS() as unknown;
  } catch (error) {
    throw invalid(`${file}: invalid YAML: ${messageOf(error)}`, hint);
  }
}

/**
 * The offset of the first key (in the text's order) that repeats an earlier scalar key of the
 * same mapping, or null: one pass over each mapping's keys with a set (YAML's rule: keys are
 * equal when they are the same scalar value).
 */
function duplicateYamlKey(doc: YAML.Document): number | null {
  let first: number | null = null;
  YAML.visit(doc, {
    Map(_, map) {
      const keys = new Set<unknown>();
      for (const pair of map.items) {
        if (!YAML.isScalar(pair.key)) continue;
        const at = pair.key.range?.[0] ?? 0;
        if (keys.has(pair.key.value)) {
          if (first === null || at < first) first = at;
          break;
        }
        keys.add(pair.key.value);
      }
    },
  });
  return first;
}
