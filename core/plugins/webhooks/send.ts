/** One delivery attempt: a JSON POST with a time bound, redirects not followed, the answer's first bytes kept. */
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, isBlockedAddress } from './ssrf';

/** Bytes of the receiver's answer kept in the attempt log. */
export const RESPONSE_EXCERPT_BYTES = 1024;

export interface AttemptResult {
  readonly ok: boolean;
  readonly status: number | null;
  readonly durationMs: number;
  readonly error: string | null;
  readonly response: string | null;
}

/** Keep-alive connection pools for http and https receivers. */
export interface Agents {
  readonly http: http.Agent;
  readonly https: https.Agent;
}

/**
 * Pools of at most `maxSockets` connections per receiver, kept open between deliveries (a new TCP
 * connection per delivery cost the node and the receiver more than the delivery itself). An idle one
 * is closed after IDLE_SOCKET_MS, before a Node receiver's 5 s keep-alive timeout closes it under a
 * request. A pooled connection was opened through the SSRF guard's lookup like any other.
 */
export function keepAliveAgents(maxSockets: number): Agents {
  const options = { keepAlive: true, maxSockets, maxFreeSockets: maxSockets, timeout: IDLE_SOCKET_MS };
  return { http: new http.Agent(options), https: new https.Agent(options) };
}

/** An idle pooled connection is closed after this long. */
export const IDLE_SOCKET_MS = 4000;

export interface SendOptions {
  readonly timeoutMs: number;
  readonly allowHosts: readonly string[];
  /** Pools to send through (none: a connection of its own, closed after). */
  readonly agents?: Agents;
}

/** Why `url` cannot be a destination at all (null: it may be, pending DNS). */
export function urlProblem(url: unknown, allowHosts: readonly string[]): string | null {
  if (typeof url !== 'string') return 'must be a URL';
  // The URL parser would drop or rewrite them; the stored value would then not be the address sent to.
  if (/[\s\x00-\x1f\x7f]/.test(url)) return 'must not contain spaces or control characters';
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must be an http or https URL';
  if (u.username || u.password) return 'must not carry credentials';
  const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const allowed = allowHosts.includes(host);
  if (!allowed && isIP(host) && isBlockedAddress(host)) return 'is in a private, loopback, link-local or metadata range (WEBHOOK_ALLOW_HOSTS opens it)';
  return null;
}

export async function sendOnce(url: string, headers: Record<string, string>, body: string, opts: SendOptions): Promise<AttemptResult> {
  let result = await post(url, headers, body, opts);
  // A pooled connection the receiver closed as it was reused: the request never reached it. Once more,
  // on a new connection (deliveries are at-least-once anyway).
  if (result.staleConnection) result = await post(url, headers, body, { ...opts, agents: undefined });
  const { ok, status, durationMs, error, response } = result;
  return { ok, status, durationMs, error, response };
}

type Outcome = Omit<AttemptResult, 'durationMs'> & { readonly staleConnection?: boolean };

function post(url: string, headers: Record<string, string>, body: string, opts: SendOptions): Promise<AttemptResult & { staleConnection?: boolean }> {
  const started = Date.now();
  const done = (r: Outcome): AttemptResult & { staleConnection?: boolean } => ({ ...r, durationMs: Date.now() - started });
  const problem = urlProblem(url, opts.allowHosts);
  if (problem) return Promise.resolve(done({ ok: false, status: null, error: `refused: url ${problem}`, response: null }));
  const u = new URL(url);
  const lib = u.protocol === 'https:' ? https : http;
  const agent = opts.agents ? (u.protocol === 'https:' ? opts.agents.https : opts.agents.http) : false;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (r: Outcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(r));
    };
    const req = lib.request(
      u,
      {
        method: 'POST',
        agent,
        lookup: guardedLookup(opts.allowHosts) as never,
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'record-and-identity-service webhooks', ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const status = res.statusCode ?? 0;
        const end = (): void => {
          const response = Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8');
          const ok = status >= 200 && status < 300;
          const error = ok ? null : status >= 300 && status < 400 ? `redirect (${status}) not followed` : `receiver answered ${status}`;
          finish({ ok, status, error, response });
        };
        res.on('data', (c: Buffer) => {
          if (size < RESPONSE_EXCERPT_BYTES) chunks.push(c);
          size += c.length;
          if (size >= RESPONSE_EXCERPT_BYTES) {
            // The excerpt is all we keep: the rest is not read (the connection goes, not back to the pool).
            end();
            res.destroy();
          }
        });
        // Read to its end, the connection returns to the pool for the next delivery.
        res.on('end', end);
        res.on('error', (e) => finish({ ok: false, status, error: e.message, response: null }));
      },
    );
    const timer = setTimeout(() => {
      finish({ ok: false, status: null, error: `timed out after ${opts.timeoutMs} ms (WEBHOOK_TIMEOUT)`, response: null });
      req.destroy();
    }, opts.timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) => {
      const staleConnection = req.reusedSocket && (e.code === 'ECONNRESET' || e.code === 'EPIPE');
      finish({ ok: false, status: null, error: e.code === 'EWEBHOOKREFUSED' ? `refused: ${e.message}` : e.message, response: null, staleConnection });
    });
    req.end(body);
  });
}
