// Every HTTP answer the project reads goes through here: one deadline covers connecting, reading
// and parsing; the body is read as a stream and refused past a byte cap (a Content-Length over
// the cap is refused before reading); redirects are not followed. What went wrong is told apart:
// no connection at all ("refused", "unreachable") versus a server that answered, but badly (a
// redirect, a body cut short, too large, not JSON), so a broken answer never reads as "cannot
// connect".

export type HttpFailure = 'refused' | 'unreachable' | 'timeout' | 'cancelled' | 'redirect' | 'broken' | 'too-large' | 'not-json';

export class HttpJsonError extends Error {
  constructor(
    readonly failure: HttpFailure,
    message: string,
    /** The HTTP status, once the server answered. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'HttpJsonError';
  }

  /** True when a connection was made (the server answered something). */
  get connected(): boolean {
    return this.status !== undefined;
  }
}

export interface HttpJsonOptions {
  method?: 'GET' | 'POST';
  /** A JSON body (POST). */
  body?: string;
  /** The one deadline: connect, read and parse. */
  timeoutMs: number;
  /** Bytes of body read at most. */
  maxBytes: number;
  signal?: AbortSignal;
  /** Injected for tests; the global fetch otherwise. */
  fetchImpl?: typeof fetch;
}

export interface HttpJsonAnswer {
  status: number;
  /** The parsed JSON, or undefined for an empty body. */
  body: unknown;
}

function causeCode(e: unknown): string | undefined {
  let c: unknown = e;
  for (let i = 0; i < 4 && c && typeof c === 'object'; i++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    c = (c as { cause?: unknown }).cause;
  }
  return undefined;
}

const mb = (n: number) => `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;

/** GETs (or POSTs) `url` and parses the JSON answer within one deadline and a byte cap. */
export async function httpJson(url: string, o: HttpJsonOptions): Promise<HttpJsonAnswer> {
  const timeout = AbortSignal.timeout(o.timeoutMs);
  const signal = o.signal ? AbortSignal.any([timeout, o.signal]) : timeout;
  const deadline = Date.now() + o.timeoutMs;
  const stopped = (e: unknown, status?: number): HttpJsonError | undefined => {
    if (timeout.aborted || Date.now() >= deadline)
      return new HttpJsonError('timeout', `no complete answer within ${o.timeoutMs} ms`, status);
    if (o.signal?.aborted) return new HttpJsonError('cancelled', 'cancelled', status);
    return e instanceof HttpJsonError ? e : undefined;
  };
  let resp: Response;
  try {
    resp = await (o.fetchImpl ?? fetch)(url, {
      method: o.method ?? 'GET',
      signal,
      redirect: 'manual',
      headers: { accept: 'application/json', ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(o.body !== undefined ? { body: o.body } : {}),
    });
  } catch (e) {
    const s = stopped(e);
    if (s) throw s;
    const code = causeCode(e);
    if (code === 'ECONNREFUSED') throw new HttpJsonError('refused', 'connection refused');
    throw new HttpJsonError('unreachable', `cannot connect (${code ?? (e instanceof Error ? e.message : String(e))})`);
  }
  const status = resp.status;
  if (status >= 300 && status < 400) {
    await resp.body?.cancel().catch(() => undefined);
    const to = resp.headers.get('location');
    throw new HttpJsonError(
      'redirect',
      `connected, but the server answered HTTP ${status}, a redirect${to ? ` to ${to.slice(0, 200)}` : ''}`,
      status,
    );
  }
  const declared = Number(resp.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > o.maxBytes) {
    await resp.body?.cancel().catch(() => undefined);
    throw new HttpJsonError(
      'too-large',
      `connected, but the answer is ${mb(declared)}, more than the ${mb(o.maxBytes)} read at most`,
      status,
    );
  }
  // The body as a stream, counted: nothing past the cap is kept.
  const chunks: Uint8Array[] = [];
  let got = 0;
  try {
    const reader = resp.body?.getReader();
    if (reader)
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        got += value.byteLength;
        if (got > o.maxBytes) {
          await reader.cancel().catch(() => undefined);
          throw new HttpJsonError('too-large', `connected, but the answer is more than the ${mb(o.maxBytes)} read at most`, status);
        }
        chunks.push(value);
      }
  } catch (e) {
    const s = stopped(e, status);
    if (s) throw s;
    const code = causeCode(e);
    throw new HttpJsonError(
      'broken',
      `connected, but the answer broke off after ${got} bytes${Number.isFinite(declared) ? ` of the ${declared} announced` : ''} (${code ?? (e instanceof Error ? e.message : String(e))})`,
      status,
    );
  }
  const text = Buffer.concat(chunks).toString('utf8');
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    throw new HttpJsonError('not-json', `connected, but the answer (HTTP ${status}) is not JSON`, status);
  }
  // Parsing is inside the deadline too.
  if (Date.now() >= deadline) throw new HttpJsonError('timeout', `no complete answer within ${o.timeoutMs} ms`, status);
  return { status, body };
}
