/**
 * The page's calls: same-origin `/v1/…` (the dashboard server proxies them to the owner's socket).
 * Every POST carries `x-iris-dashboard: 1` (the server refuses one without it). A refusal becomes
 * an ApiError with the API's code, message and hint (docs/api.md, "Errors").
 */
import type { ApiErrorBody } from '../api/types.js';
import { chunksOf, ndjson } from './ndjson.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

export type Params = Record<string, string | number | boolean | null | undefined>;

/** `?a=1&b=x`, leaving out null, undefined, false and ''. */
export function query(params: Params = {}): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === null || v === undefined || v === false || v === '') continue;
    search.set(k, v === true ? '1' : String(v));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

async function refusal(res: Response): Promise<ApiError> {
  let body: Partial<ApiErrorBody> | null = null;
  try {
    body = (await res.json()) as ApiErrorBody;
  } catch {
    body = null;
  }
  const error = body?.error;
  return new ApiError(res.status, error?.code ?? 'unavailable', error?.message ?? res.statusText, error?.hint);
}

async function send(path: string, init: RequestInit): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(path, { credentials: 'same-origin', ...init });
  } catch (error) {
    throw new ApiError(
      0,
      'unavailable',
      `the dashboard server did not answer (${(error as Error).message})`,
      'the cluster may have stopped or restarted: run `iris dashboard` for a new link',
    );
  }
  if (!res.ok) throw await refusal(res);
  return res;
}

export async function getJson<T>(route: string, params?: Params, signal?: AbortSignal): Promise<T> {
  const res = await send(`/v1/${route}${query(params)}`, { headers: { accept: 'application/json' }, signal });
  return (await res.json()) as T;
}

export async function postJson<T>(route: string, body: unknown): Promise<T> {
  const res = await send(`/v1/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-iris-dashboard': '1' },
    body: JSON.stringify(body),
  });
  return (await res.json()) as T;
}

/** The items of a streamed NDJSON route (GET /v1/logs), as they arrive; stop it with `signal`. */
export async function* streamJson<T>(route: string, params: Params, signal: AbortSignal): AsyncGenerator<T> {
  const res = await send(`/v1/${route}${query(params)}`, { signal });
  if (!res.body) return;
  for await (const item of ndjson<T | Partial<ApiErrorBody>>(chunksOf(res.body))) {
    const error = (item as Partial<ApiErrorBody>).error;
    if (error && typeof error === 'object') throw new ApiError(200, error.code, error.message, error.hint);
    yield item as T;
  }
}
