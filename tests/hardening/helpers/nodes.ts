/**
 * Several server processes ("nodes") on one fresh PostgreSQL database, optionally sharing Redis, as
 * they would run behind a load balancer. The first node migrates; the others start with
 * AUTO_MIGRATE=false, as DEPLOYMENT.md asks of every node but one.
 */
import { freshDatabase, type FreshDatabase } from './fresh-service';
import { send } from './load';
import { type ServerProcess, startServerProcess } from './server-process';

export const REDIS_URL = 'redis://127.0.0.1:6379';

export interface Nodes {
  readonly fresh: FreshDatabase;
  readonly nodes: readonly ServerProcess[];
  close(): Promise<void>;
}

/** `count` nodes with `env` each (REDIS_URL, limits …), started one after the other. */
export async function startNodes(count: number, env: Record<string, string>): Promise<Nodes> {
  const fresh = await freshDatabase('postgres');
  const nodes: ServerProcess[] = [];
  const close = async (): Promise<void> => {
    for (const n of nodes) if (n.proc.exitCode === null) n.kill('SIGKILL');
    await Promise.all(nodes.map((n) => n.exited));
    await fresh.drop();
  };
  try {
    for (let i = 0; i < count; i++) nodes.push(await startServerProcess({ ...fresh.env, LOG_LEVEL: 'warn', ...env, ...(i > 0 ? { AUTO_MIGRATE: 'false' } : {}) }));
  } catch (e) {
    await close();
    throw e;
  }
  return { fresh, nodes, close };
}

export interface SignedIn {
  readonly id: number;
  readonly username: string;
  readonly password: string;
  readonly accessToken: string;
  readonly refreshToken: string;
}

/** An admin on `node` creates a user through /api/user with the given role ids; the user signs in there. */
export async function createUserOver(node: ServerProcess, username: string, roleIds: readonly number[]): Promise<SignedIn> {
  const password = `password-${username}`;
  const made = await send(node.url, { kind: 'setup', method: 'POST', path: '/api/user', body: { username, email: `${username}@example.test`, password, roles: roleIds } });
  if (made.status !== 200) throw new Error(`creating ${username} answered ${made.status}: ${JSON.stringify(made.body)}`);
  const id = (made.body as { data: { id: number } }).data.id;
  const signed = await signInOver(node.url, username, password);
  return { id, username, password, ...signed };
}

/** The id of the first record a list path answers (as the admin), e.g. a role or permission by name. */
export async function firstId(node: ServerProcess, path: string): Promise<number> {
  const r = await send(node.url, { kind: 'setup', method: 'GET', path });
  const rec = (r.body as { records?: { id: number }[] }).records?.[0];
  if (r.status !== 200 || !rec) throw new Error(`${path} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return rec.id;
}

/** POST /api/iam/authenticate without the admin's bearer; throws unless 200. */
export async function signInOver(url: string, username: string, password: string, headers: Record<string, string> = {}): Promise<{ accessToken: string; refreshToken: string }> {
  const res = await fetch(`${url}/api/iam/authenticate`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ username, password }) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`sign-in of ${username} answered ${res.status}: ${text}`);
  return (JSON.parse(text) as { data: { accessToken: string; refreshToken: string } }).data;
}

/** One request with the given bearer (or none) instead of the admin's; the status and parsed body. */
export async function call(url: string, method: string, path: string, opts: { token?: string | null; body?: unknown; headers?: Record<string, string> } = {}): Promise<{ status: number; body: unknown; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(url + path, {
    method,
    headers: { ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }), ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...(opts.headers ?? {}) },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* keep the text */
  }
  return { status: res.status, body, ms: performance.now() - t0 };
}

/** Polls `probe` every 20 ms until it answers `status`; the milliseconds that took, or null past `limitMs`. */
export async function msUntil(probe: () => Promise<number>, status: number, limitMs: number): Promise<number | null> {
  const t = performance.now();
  while (performance.now() - t < limitMs) {
    if ((await probe()) === status) return Math.round(performance.now() - t);
    await new Promise((r) => setTimeout(r, 20));
  }
  return null;
}

/** Sign-ins with `body(i)` sent to the given nodes in turn from one client address, until the first 429: its attempt number. */
export async function attemptsUntil429(nodes: readonly ServerProcess[], body: (i: number) => Record<string, string>, address: string, max: number): Promise<{ first429: number | null; statuses: number[] }> {
  const statuses: number[] = [];
  for (let i = 0; i < max; i++) {
    const node = nodes[i % nodes.length];
    const r = await call(node.url, 'POST', '/api/iam/authenticate', { body: body(i), headers: { 'x-forwarded-for': address } });
    statuses.push(r.status);
    if (r.status === 429) return { first429: i + 1, statuses };
  }
  return { first429: null, statuses };
}
