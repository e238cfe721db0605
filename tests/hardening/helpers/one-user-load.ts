/**
 * What the "one user's heavy reads" hardening tests share (large-answers, grouped-answers,
 * large-values): a GET that counts the answer's bytes and keeps only its head, a server process that
 * measures the turns of its event loop (loop-rounds.ts), and one user running the same request on
 * several connections until a deadline.
 */
import http from 'node:http';
import { join } from 'node:path';
import { expect } from 'chai';
import type { TestDialect } from '../../helpers/dialects';
import { ROOT } from '../../helpers/test-app';
import { freshDatabase, type FreshDatabase } from './fresh-service';
import { createUserOver, firstId } from './nodes';
import { startServerProcess, type ServerProcess } from './server-process';

export interface Got {
  readonly status: number;
  /** Bytes of the answer's body. */
  readonly bytes: number;
  /** Its first 4 KiB as text (a JSON error is whole). */
  readonly body: string;
  readonly ms: number;
}

const HEAD_BYTES = 4096;

/** GET on a connection of its own, the body counted and dropped past its head (parsing megabytes here would stall this process's own timing). */
export function countedGet(url: string, token?: string): Promise<Got> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.get(url, { agent: false, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
      const head: Buffer[] = [];
      let bytes = 0;
      res.on('data', (c: Buffer) => {
        if (bytes < HEAD_BYTES) head.push(c);
        bytes += c.length;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, body: Buffer.concat(head).toString('utf8').slice(0, HEAD_BYTES), ms: performance.now() - t0 }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(60_000, () => req.destroy(new Error(`no answer from ${url} within 60 s`)));
  });
}

/** A server process that measures the turns of its event loop (`turnsDuring`). */
export function startLoopMeasuredServer(env: Record<string, string>): Promise<ServerProcess> {
  return startServerProcess(env, { nodeArgs: ['--require', join(ROOT, 'dist', 'tests', 'hardening', 'helpers', 'loop-rounds.js')] });
}

export interface Turns {
  readonly count: number;
  /** Main-thread CPU per turn, sorted. */
  readonly cpuMs: number[];
  /** Wall time per turn, sorted. */
  readonly wallMs: number[];
}

/** Runs `during` while the server (startLoopMeasuredServer) records the turns of its loop; its report. */
export async function turnsDuring(server: ServerProcess, during: () => Promise<void>): Promise<Turns> {
  server.proc.kill('SIGUSR2'); // loop-rounds: start
  await during();
  server.proc.kill('SIGUSR2'); // loop-rounds: stop and report
  const report = (): string | undefined => server.stderr().split('\n').find((l) => l.startsWith('loop-rounds '));
  // the report comes through the process's stderr pipe: wait for it, a few seconds at most
  for (const until = Date.now() + 5000; report() === undefined && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20));
  const line = report();
  expect(line, `loop-rounds report in stderr: ${server.stderr()}`).to.be.a('string');
  return JSON.parse((line as string).slice('loop-rounds '.length)) as Turns;
}

/**
 * One user (`token`) asking `url` on `connections` connections at once, again and again until `end`
 * (Date.now() ms), each answer expected 200; the times of the answers, in the order they came.
 */
export function oneUserRepeats(url: string, token: string, connections: number, end: number, what: string): { readonly times: number[]; readonly done: Promise<void> } {
  const times: number[] = [];
  const one = async (): Promise<void> => {
    while (Date.now() < end) {
      const r = await countedGet(url, token);
      expect(r.status, what).to.equal(200);
      times.push(r.ms);
    }
  };
  return { times, done: Promise.all(Array.from({ length: connections }, one)).then(() => undefined) };
}

/** A fresh database seeded by `seed`, a loop-measured server on it, and two ordinary users of role `authenticated`. */
export interface OneUserScene<T> {
  readonly fresh: FreshDatabase;
  readonly server: ServerProcess;
  /** The user who runs the heavy requests. */
  readonly reader: string;
  /** Another user, whose cheap requests must not wait. */
  readonly victim: string;
  readonly seeded: T;
  close(): Promise<void>;
}

export async function oneUserScene<T>(dialect: TestDialect, seed: (fresh: FreshDatabase) => Promise<T>): Promise<OneUserScene<T>> {
  const fresh = await freshDatabase(dialect);
  let server: ServerProcess | null = null;
  const close = async (): Promise<void> => {
    server?.kill('SIGKILL');
    await server?.exited;
    await fresh.drop();
  };
  try {
    server = await startLoopMeasuredServer({ ...fresh.env, LOG_LEVEL: 'warn' });
    const seeded = await seed(fresh);
    const authenticated = await firstId(server, '/api/role?filters[name][$eq]=authenticated');
    const reader = (await createUserOver(server, 'reader', [authenticated])).accessToken;
    const victim = (await createUserOver(server, 'victim', [authenticated])).accessToken;
    return { fresh, server, reader, victim, seeded, close };
  } catch (err) {
    await close();
    throw err;
  }
}
