/** A small JSON client over fetch, for API tests against a listening test server. */
export interface Reply<T = any> {
  readonly status: number;
  readonly body: T;
  readonly headers: Headers;
  readonly text: string;
}

export interface Client {
  get<T = any>(path: string, opts?: RequestOpts): Promise<Reply<T>>;
  post<T = any>(path: string, body?: unknown, opts?: RequestOpts): Promise<Reply<T>>;
  put<T = any>(path: string, body?: unknown, opts?: RequestOpts): Promise<Reply<T>>;
  patch<T = any>(path: string, body?: unknown, opts?: RequestOpts): Promise<Reply<T>>;
  del<T = any>(path: string, body?: unknown, opts?: RequestOpts): Promise<Reply<T>>;
  withToken(token: string | null): Client;
}

export interface RequestOpts {
  readonly headers?: Record<string, string>;
  /** Sent as is (no JSON encoding). */
  readonly raw?: string | Uint8Array;
}

/** Called with every reply any client receives (the identity suite checks none leaks a secret). */
export const replyObservers: ((r: Reply, method: string, path: string) => void)[] = [];

/** `fetchImpl`: test-app.ts passes a fetch that checks every response against the OpenAPI document. */
export function client(baseUrl: string, token: string | null = null, fetchImpl: typeof fetch = fetch): Client {
  const send = async (method: string, path: string, body: unknown, opts: RequestOpts = {}): Promise<Reply> => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (token) headers.authorization = `Bearer ${token}`;
    let payload: string | Uint8Array | undefined = opts.raw;
    if (payload === undefined && body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetchImpl(baseUrl + path, { method, headers, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      /* not JSON: keep the text */
    }
    const reply = { status: res.status, body: parsed, headers: res.headers, text };
    for (const o of replyObservers) o(reply, method, path);
    return reply;
  };
  return {
    get: (p, o) => send('GET', p, undefined, o),
    post: (p, b, o) => send('POST', p, b, o),
    put: (p, b, o) => send('PUT', p, b, o),
    patch: (p, b, o) => send('PATCH', p, b, o),
    del: (p, b, o) => send('DELETE', p, b, o),
    withToken: (t) => client(baseUrl, t, fetchImpl),
  };
}
