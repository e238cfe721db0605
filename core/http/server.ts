/** listen; SIGTERM/SIGINT: stop accepting, finish requests in flight, close the pool, exit 0. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';
import type Koa from 'koa';
import type { Logger } from 'pino';
import type { RequestState } from './state';

export interface HttpTimeouts {
  /** Longest a request may take to arrive, headers and body (408 and the socket closed after). */
  readonly requestMs: number;
  /** Longest the headers may take to arrive. */
  readonly headersMs: number;
  /** How long an idle keep-alive socket is kept open. */
  readonly keepAliveMs: number;
  /** Longest an answer of known length may go without the client taking a byte of it (0: no limit); the connection is closed then. */
  readonly sendMs: number;
}

/** The HTTP_* settings (config.http) as `listen` takes them. */
export function httpTimeouts(http: { readonly requestTimeoutMs: number; readonly headersTimeoutMs: number; readonly keepAliveTimeoutMs: number; readonly sendTimeoutMs: number }): HttpTimeouts {
  return { requestMs: http.requestTimeoutMs, headersMs: http.headersTimeoutMs, keepAliveMs: http.keepAliveTimeoutMs, sendMs: http.sendTimeoutMs };
}

/** A slow client cannot hold a worker forever: these bound how long a request may take to arrive. */
export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = { requestMs: 30_000, headersMs: 10_000, keepAliveMs: 5_000, sendMs: 30_000 };
/**
 * Request line plus headers (Node: 16 KiB by default, then 431 with no body): room for a query string of
 * MAX_QUERY_STRING (32 KiB, core/query/limits.ts) with its headers, so that limit is the one a long
 * query meets, and answers 400 naming it.
 */
export const MAX_REQUEST_HEAD_BYTES = 48 * 1024;

/** How long a shutdown waits for requests in flight. */
export const DRAIN_TIMEOUT_MS = 15_000;

/** Emitted on every answer in flight when a drain begins: streams that never finish by themselves end then. */
export const DRAINING_EVENT = 'ris:draining';

/** Per server: the answers not yet finished, and whether drain() has begun. */
const inFlight = new WeakMap<Server, Set<ServerResponse>>();
const draining = new WeakSet<Server>();

/** No further request on this socket: the answer says Connection: close and the socket ends after it. */
function lastOnSocket(res: ServerResponse): void {
  if (!res.headersSent) res.shouldKeepAlive = false;
}

/** The server could not listen (port taken, privileged port, unknown address): one clear line at start. */
export class ListenError extends Error {}

/** A listen failure → what to do about it, in the settings' words; anything else unchanged. */
export function listenError(err: unknown, port: number, host: string): unknown {
  switch ((err as NodeJS.ErrnoException | null)?.code) {
    case 'EADDRINUSE':
      return new ListenError(`port ${port} is in use (another instance running?) — set PORT or stop it`);
    case 'EACCES':
      return new ListenError(`port ${port} needs privileges this process lacks — set PORT to 1024 or above`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new ListenError(`HOST ${host} is not an address of this machine — set HOST (0.0.0.0: every address)`);
    default:
      return err;
  }
}

/**
 * A client that stops reading would make this node hold the rest of its answer for as long as it keeps
 * the connection open (a few hundred such requests held gigabytes). Once the answer has been handed to
 * the socket, a socket that takes none of its bytes for `ms` is closed, which frees them (and the caller's
 * turn, core/http/caller-gate.ts). Only answers of known length: a stream of events (realtime) has no
 * end to wait for and drops slow readers itself. Every chunk the client takes restarts the time, so a
 * slow reader that keeps reading is not cut (large answers go out in chunks, core/records/controller.ts).
 * When the answer is finished Node's own keep-alive time replaces this one.
 */
function watchSend(res: ServerResponse, ms: number): void {
  if (ms <= 0 || res.writableFinished || res.destroyed || !res.hasHeader('content-length')) return;
  res.setTimeout(ms, () => {
    if (!res.writableFinished) res.destroy(new Error(`the client took no byte of the answer for ${ms} ms (HTTP_SEND_TIMEOUT)`));
  });
}

export function listen(app: Koa<RequestState>, port: number, host: string, timeouts: Partial<HttpTimeouts> = {}): Promise<Server> {
  const t = { ...DEFAULT_HTTP_TIMEOUTS, ...timeouts };
  // Node checks the request and headers timeouts on this interval (default 30 s); check often enough
  // that the bounds above hold to within a fraction of themselves.
  const checkEvery = Math.max(100, Math.min(1000, Math.floor(Math.min(t.requestMs, t.headersMs) / 4)));
  const handle = app.callback();
  const active = new Set<ServerResponse>();
  const server = createServer({ connectionsCheckingInterval: checkEvery, requestTimeout: t.requestMs, headersTimeout: t.headersMs, keepAliveTimeout: t.keepAliveMs, maxHeaderSize: MAX_REQUEST_HEAD_BYTES }, (req: IncomingMessage, res: ServerResponse) => {
    // While draining, every answer says Connection: close, so keep-alive clients do not send another
    // request on a socket that is about to go away (they would see it reset).
    if (draining.has(server)) lastOnSocket(res);
    active.add(res);
    const done = (): void => void active.delete(res);
    res.once('finish', done);
    res.once('close', done);
    void handle(req, res).then(() => watchSend(res, t.sendMs));
  });
  inFlight.set(server, active);
  return new Promise((resolve, reject) => {
    const failed = (err: Error): void => reject(listenError(err, port, host));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve(server);
    });
  });
}

export interface DrainOptions {
  /** Close idle keep-alive connections at once (tests, where no client races the close) instead of letting them time out. */
  readonly cutIdle?: boolean;
}

/**
 * Stops accepting, lets requests in flight finish (bounded), then runs `close`.
 *
 * Idle keep-alive connections are not cut at once: a client may be writing its next request on one
 * at that very moment and would see the connection reset. Instead every answer from now on says
 * Connection: close (the socket ends after it), and a connection that stays idle is closed by the
 * keep-alive timeout, which well-behaved clients anticipate (undici, for one, stops reusing a socket
 * a second before the `Keep-Alive: timeout` Node advertises). So the drain takes at most the
 * longest request in flight or the keep-alive timeout, and DRAIN_TIMEOUT_MS in any case.
 */
export async function drain(server: Server, close: () => Promise<void>, log: Logger, opts: DrainOptions = {}): Promise<void> {
  draining.add(server);
  for (const res of inFlight.get(server) ?? []) {
    lastOnSocket(res);
    // Long-lived answers (realtime streams, core/realtime/stream.ts) end themselves on this.
    res.emit(DRAINING_EVENT);
  }
  // net.Server#close stops accepting; http.Server#close would also cut the idle keep-alive sockets.
  const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
  if (opts.cutIdle) server.closeIdleConnections();
  const timer = setTimeout(() => {
    log.warn('drain timeout: closing remaining connections');
    server.closeAllConnections();
  }, DRAIN_TIMEOUT_MS);
  await closed;
  clearTimeout(timer);
  await close();
}

export function onShutdownSignal(server: Server, close: () => Promise<void>, log: Logger): void {
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    drain(server, close, log).then(
      () => {
        log.info('shut down cleanly');
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
