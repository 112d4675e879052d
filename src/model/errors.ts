/**
 * One error hierarchy for iris. User errors carry a message and an optional hint and are
 * printed without a stack trace; anything else is a bug and prints its stack.
 * `code` is stable and travels over the socket API; `status` is the HTTP status to use.
 */
export type ErrorCode =
  | 'invalid_argument'
  | 'not_found'
  | 'conflict'
  | 'unsatisfiable'
  | 'quota_exceeded'
  | 'forbidden'
  | 'unavailable'
  | 'payload_too_large'
  | 'insufficient_storage'
  | 'internal';

const STATUS: Record<ErrorCode, number> = {
  invalid_argument: 400,
  not_found: 404,
  conflict: 409,
  unsatisfiable: 422,
  quota_exceeded: 429,
  forbidden: 403,
  unavailable: 503,
  payload_too_large: 413,
  insufficient_storage: 507,
  internal: 500,
};

/** Exit codes scripts can rely on (see docs/cli.md). */
export const EXIT = {
  ok: 0,
  jobFailed: 1,
  usage: 2,
  notFound: 3,
  conflict: 4,
  unsatisfiable: 5,
  unavailable: 6,
  /** The cluster's state directory is full (no space or quota left): nothing new is accepted until space returns. */
  noSpace: 7,
  /** `iris wait --timeout` ran out before the jobs ended (the value GNU timeout uses). */
  timeout: 124,
  internal: 70,
} as const;

export class IrisError extends Error {
  readonly code: ErrorCode;
  readonly hint?: string;
  /**
   * The request field the error is about, as its key path (`cpu`, `command[1]`, `env.LR`,
   * `stages.train.memory`), when it is about one. The message then begins with that path or
   * names the value in its own words (`invalid cpu "0x10": …`); the CLI shows the flag instead
   * (src/ui/submit-flags.ts).
   */
  readonly field?: string;
  constructor(code: ErrorCode, message: string, hint?: string, field?: string) {
    super(message);
    this.name = 'IrisError';
    this.code = code;
    this.hint = hint;
    if (field !== undefined) this.field = field;
  }
  get status(): number {
    return STATUS[this.code];
  }
  get exitCode(): number {
    switch (this.code) {
      case 'invalid_argument':
      case 'payload_too_large':
        return EXIT.usage;
      case 'not_found':
        return EXIT.notFound;
      case 'conflict':
      case 'forbidden':
      case 'quota_exceeded':
        return EXIT.conflict;
      case 'unsatisfiable':
        return EXIT.unsatisfiable;
      case 'unavailable':
        return EXIT.unavailable;
      case 'insufficient_storage':
        return EXIT.noSpace;
      default:
        return EXIT.internal;
    }
  }
  toJSON(): { code: ErrorCode; message: string; hint?: string; field?: string } {
    const { code, message, hint, field } = this;
    return { code, message, ...(hint ? { hint } : {}), ...(field !== undefined ? { field } : {}) };
  }
}

export const invalid = (message: string, hint?: string) => new IrisError('invalid_argument', message, hint);
export const notFound = (message: string, hint?: string) => new IrisError('not_found', message, hint);
export const conflict = (message: string, hint?: string) => new IrisError('conflict', message, hint);

/** The longest text a message echoes whole; longer values are cut (see describeValue). */
export const MAX_ECHOED_CHARS = 64;

/**
 * How a message shows an offending value: `"text"`, `42`, `true`, `null`, `a list` (`an array` in
 * request bodies), `an object`. Every message that echoes what a user gave goes through here, so
 * a huge value is never printed whole: text past MAX_ECHOED_CHARS becomes
 * `"first characters…" (10000 characters)`.
 */
export function describeValue(value: unknown, style: 'file' | 'body' = 'file'): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return style === 'body' ? 'an array' : 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') {
    if (value.length <= MAX_ECHOED_CHARS) return `"${value}"`;
    // Cut on a code point boundary; the length is in UTF-16 units (what `.length` counts).
    const head = Array.from(value.slice(0, 2 * MAX_ECHOED_CHARS))
      .slice(0, MAX_ECHOED_CHARS - 16)
      .join('');
    return `"${head}…" (${value.length} characters)`;
  }
  const text = String(value);
  return text.length <= MAX_ECHOED_CHARS
    ? text
    : `${text.slice(0, MAX_ECHOED_CHARS - 16)}… (${text.length} characters)`;
}

/**
 * Run `parse`; an IrisError it throws comes back with `prefix: ` before its message (the field
 * or parameter it was about), unless its message already mentions `unlessMentioned`.
 */
export function relabel<T>(prefix: string, parse: () => T, unlessMentioned?: string): T {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof IrisError)) throw error;
    if (unlessMentioned !== undefined && error.message.toLowerCase().includes(unlessMentioned)) throw error;
    throw new IrisError(error.code, `${prefix}: ${error.message}`, error.hint, error.field);
  }
}
