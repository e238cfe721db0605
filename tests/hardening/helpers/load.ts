/** A bounded closed-loop load generator over fetch (keep-alive), recording every outcome. */

export interface Outcome {
  readonly kind: string;
  readonly requestId: string;
  readonly status: number | null;
  /** Set when no HTTP answer arrived (reset, refused …). */
  readonly error: string | null;
  readonly ms: number;
  readonly startedAt: number;
  readonly tag: unknown;
}

export interface Call {
  readonly kind: string;
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  /** Anything the scenario wants back with the outcome (the names a write used, …). */
  readonly tag?: unknown;
}

let seq = 0;

/** Bearer tokens by server URL (server-process.ts signs an admin in): every `send` to that server carries it. */
export const bearerTokens = new Map<string, string>();

/** One request with an X-Request-Id the server logs, never throwing. */
export async function send(baseUrl: string, call: Call, timeoutMs = 10_000): Promise<Outcome & { body: unknown }> {
  const requestId = `load-${process.pid}-${++seq}`;
  const startedAt = Date.now();
  const t0 = performance.now();
  try {
    const res = await fetch(baseUrl + call.path, {
      method: call.method,
      headers: { 'x-request-id': requestId, ...(call.body === undefined ? {} : { 'content-type': 'application/json' }), ...(bearerTokens.has(baseUrl) ? { authorization: `Bearer ${bearerTokens.get(baseUrl)}` } : {}) },
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* keep the text */
    }
    return { kind: call.kind, requestId, status: res.status, error: null, ms: performance.now() - t0, startedAt, tag: call.tag, body };
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    const error = cause?.code ?? cause?.message ?? (e as Error).name ?? String(e);
    return { kind: call.kind, requestId, status: null, error, ms: performance.now() - t0, startedAt, tag: call.tag, body: null };
  }
}

/**
 * `workers` loops, each calling `next(worker, i)` for its next request until `until()` is true.
 * Every outcome is kept; `onOutcome` sees each as it arrives.
 */
export async function runLoad(opts: {
  readonly baseUrl: string;
  readonly workers: number;
  readonly next: (worker: number, i: number) => Call;
  readonly until: () => boolean;
  readonly onOutcome?: (o: Outcome & { body: unknown }) => void;
  readonly pauseMs?: number;
}): Promise<Outcome[]> {
  const out: Outcome[] = [];
  await Promise.all(
    Array.from({ length: opts.workers }, async (_, w) => {
      for (let i = 0; !opts.until(); i++) {
        const o = await send(opts.baseUrl, opts.next(w, i));
        opts.onOutcome?.(o);
        const { body: _body, ...rest } = o;
        out.push(rest);
        // a refused or broken connection: back off a little instead of spinning
        const pause = o.error !== null ? Math.max(opts.pauseMs ?? 0, 20) : opts.pauseMs;
        if (pause) await new Promise((r) => setTimeout(r, pause));
      }
    }),
  );
  return out;
}

/** Counts by a key, for the printed figures. */
export function tally<T>(items: readonly T[], key: (t: T) => string): Record<string, number> {
  const m: Record<string, number> = {};
  for (const t of items) m[key(t)] = (m[key(t)] ?? 0) + 1;
  return m;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

/** One figures line per scenario, easy to find in CI output. */
export function figures(name: string, data: Record<string, unknown>): void {
  console.log(`      [figures] ${name}: ${JSON.stringify(data)}`);
}
