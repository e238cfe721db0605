/**
 * A Server-Sent Events reader for tests, on node:http (no dependency): parses `id`, `event`, `data`
 * and comment lines as they arrive; a non-200 answer is read whole as JSON.
 */
import { get, type IncomingMessage } from 'node:http';

export interface SseEvent {
  readonly id: string | null;
  readonly event: string;
  readonly data: unknown;
  /** Milliseconds since the epoch when the event was parsed. */
  readonly at: number;
}

export interface SseClient {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  /** Non-200 answers: the JSON body. */
  readonly body: unknown;
  readonly events: SseEvent[];
  readonly comments: string[];
  /** Resolves when the server has ended the stream (or the connection broke). */
  readonly ended: Promise<void>;
  isEnded(): boolean;
  /** Waits until `pred` holds for some event (resolves it) or `ms` pass (rejects). */
  waitFor(pred: (e: SseEvent) => boolean, ms?: number): Promise<SseEvent>;
  /** Stops reading from the socket (a slow client). */
  pause(): void;
  /** Reads again. */
  resume(): void;
  close(): void;
}

export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = get(url, { agent: false, headers: { Accept: 'text/event-stream', ...headers } }, (res) => {
      const events: SseEvent[] = [];
      const comments: string[] = [];
      const waiters: { pred: (e: SseEvent) => boolean; done: (e: SseEvent) => void }[] = [];
      let ended = false;
      let endedResolve: () => void = () => undefined;
      const endedP = new Promise<void>((r) => (endedResolve = r));
      const markEnded = (): void => {
        ended = true;
        endedResolve();
      };
      res.on('end', markEnded);
      res.on('close', markEnded);
      res.on('error', markEnded);
      req.on('error', markEnded);
      // A paused response reports nothing until read: the socket's close is the end then.
      res.socket.on('close', markEnded);
      const client = (body: unknown): SseClient => ({
        status: res.statusCode ?? 0,
        headers: res.headers,
        body,
        events,
        comments,
        ended: endedP,
        isEnded: () => ended,
        waitFor(pred, ms = 3000) {
          const hit = events.find(pred);
          if (hit) return Promise.resolve(hit);
          return new Promise((ok, fail) => {
            const w = { pred, done: (e: SseEvent) => (clearTimeout(t), ok(e)) };
            const t = setTimeout(() => {
              waiters.splice(waiters.indexOf(w), 1);
              fail(new Error(`no matching event within ${ms} ms; got ${JSON.stringify(events.map((e) => [e.id, e.event]))}`));
            }, ms);
            waiters.push(w);
          });
        },
        pause: () => res.pause(),
        resume: () => res.resume(),
        close: () => req.destroy(),
      });
      if (res.statusCode !== 200) {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            /* not JSON */
          }
          resolve(client(body));
        });
        return;
      }
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          let id: string | null = null;
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('id:')) id = line.slice(3).trim();
            else if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
          }
          if (data.length === 0) continue;
          const e: SseEvent = { id, event, data: JSON.parse(data.join('\n')), at: Date.now() };
          events.push(e);
          for (const w of [...waiters]) {
            if (w.pred(e)) {
              waiters.splice(waiters.indexOf(w), 1);
              w.done(e);
            }
          }
        }
      });
      resolve(client(null));
    });
    req.on('error', reject);
  });
}
