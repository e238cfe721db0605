/** listen; SIGTERM/SIGINT: stop accepting, finish requests in flight, close the pool, exit 0. */
import { createServer, type Server } from 'node:http';
import type Koa from 'koa';
import type { Logger } from 'pino';
import type { RequestState } from './state';

/** Longest a request may take to arrive (headers and body): a slow client cannot hold a worker forever. */
export const REQUEST_TIMEOUT_MS = 30_000;
export const HEADERS_TIMEOUT_MS = 10_000;
/** How long a shutdown waits for requests in flight. */
export const DRAIN_TIMEOUT_MS = 15_000;

export function listen(app: Koa<RequestState>, port: number, host: string): Promise<Server> {
  const server = createServer(app.callback());
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.keepAliveTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** Stops accepting, lets requests in flight finish (bounded), then runs `close`. */
export async function drain(server: Server, close: () => Promise<void>, log: Logger): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
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
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
