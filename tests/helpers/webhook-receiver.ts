/** A webhook receiver on 127.0.0.1 for tests: records every request; answers as `respond` says. */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly path: string;
  readonly body: string;
  readonly json: any;
  readonly at: number;
}

export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** Status (and optional body/headers) for the n-th request (0-based), or 'hang' (never answers). */
  respond: (req: Received, n: number) => number | 'hang' | { status: number; body?: string; headers?: Record<string, string>; delayMs?: number };
  /** TCP connections the receiver has accepted so far. */
  readonly connections: number;
  /** Closes a connection idle this long after an answer (Node's default: 5 s). */
  keepAliveTimeout(ms: number): void;
  /** Waits until `pred` holds of the requests received so far. */
  until(pred: (r: Received[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  let server: Server;
  let connections = 0;
  const r: Receiver = {
    url: '',
    received,
    respond: () => 200,
    get connections() {
      return connections;
    },
    keepAliveTimeout(ms) {
      server.keepAliveTimeout = ms;
    },
    async until(pred, timeoutMs = 10_000) {
      const t0 = Date.now();
      while (!pred(received)) {
        if (Date.now() - t0 > timeoutMs) throw new Error(`receiver: condition not met within ${timeoutMs} ms (${received.length} requests)`);
        await new Promise((res) => setTimeout(res, 10));
      }
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        /* not JSON */
      }
      const entry = { headers: req.headers, path: req.url ?? '', body, json, at: Date.now() };
      const n = received.length;
      received.push(entry);
      const answer = r.respond(entry, n);
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      const a = typeof answer === 'number' ? { status: answer } : answer;
      const send = (): void => {
        res.writeHead(a.status, { 'content-type': 'text/plain', ...(a.headers ?? {}) });
        res.end(a.body ?? `answer ${a.status}`);
      };
      if (a.delayMs) {
        hanging.add(res);
        setTimeout(send, a.delayMs);
      } else send();
    });
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  (r as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return r;
}
