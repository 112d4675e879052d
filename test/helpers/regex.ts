/**
 * A long pattern written in pieces, so an assertion's regular expression fits in 120 columns:
 * `joined(/^no worker fits: /, /1 too little CPU/)` is `/^no worker fits: 1 too little CPU/`.
 * The pieces' sources are concatenated as they are; the flags are the first piece's.
 */
export function joined(...parts: readonly RegExp[]): RegExp {
  return new RegExp(parts.map((part) => part.source).join(''), parts[0]?.flags ?? '');
}
