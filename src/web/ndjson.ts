/**
 * Reading a streamed NDJSON answer (GET /v1/logs, GET /v1/events) chunk by chunk. Pure: the
 * chunks come from any async iterable of bytes (a fetch body's reader in the page, arrays in tests).
 * Guarantees: each complete non-empty line is parsed once, in order, whatever the chunk
 * boundaries (inside a line or inside a multi-byte character); a last line without `\n` is parsed
 * at the end; a line that is not JSON throws.
 */

export async function* ndjson<T = unknown>(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<T> {
  const decoder = new TextDecoder();
  let rest = '';
  for await (const chunk of chunks) {
    rest += decoder.decode(chunk, { stream: true });
    let cut = rest.indexOf('\n');
    while (cut >= 0) {
      const line = rest.slice(0, cut).trim();
      rest = rest.slice(cut + 1);
      if (line) yield JSON.parse(line) as T;
      cut = rest.indexOf('\n');
    }
  }
  rest += decoder.decode();
  if (rest.trim()) yield JSON.parse(rest.trim()) as T;
}

/** A fetch body as an async iterable of chunks (a ReadableStream reader, released at the end). */
export async function* chunksOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (value) yield value;
    }
  } finally {
    reader.releaseLock();
  }
}
