/**
 * A throwaway MariaDB server (mariadb-install-db + mariadbd) on its own port and temp folder, so fault
 * tests can stop and start a database without touching the shared one. Runs as the `mysql` OS user
 * when we are root. Grant tables are skipped (a throwaway: root connects without a password over TCP).
 */
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import knex from 'knex';
import { freePort } from './server-process';

export interface ThrowawayMariadb {
  /** mysql://root@127.0.0.1:<port>/app (the database `app`, utf8mb4). */
  readonly url: string;
  readonly port: number;
  start(): Promise<void>;
  /** SIGTERM and wait for the exit: MariaDB's normal shutdown, which breaks every open connection. */
  stop(): Promise<void>;
  /** SIGSTOP to mariadbd (one process; its threads stop with it): sockets stay open, nothing answers. Answers the pids stopped. */
  freeze(): number[];
  /** SIGCONT to what `freeze` stopped. */
  thaw(): void;
  destroy(): void;
}

const MARIADBD = '/usr/sbin/mariadbd';

function osUser(): { uid: number; gid: number } | null {
  if (userInfo().uid !== 0) return null;
  return { uid: Number(execFileSync('id', ['-u', 'mysql']).toString().trim()), gid: Number(execFileSync('id', ['-g', 'mysql']).toString().trim()) };
}

export function mariadbToolsAvailable(): boolean {
  try {
    execFileSync('which', ['mariadb-install-db'], { stdio: 'ignore' });
    execFileSync(MARIADBD, ['--version'], { stdio: 'ignore' });
    if (userInfo().uid === 0) execFileSync('id', ['mysql'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function createThrowawayMariadb(): Promise<ThrowawayMariadb> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'ris-mariadb-'));
  const data = join(dir, 'data');
  const user = osUser();
  if (user) {
    chownSync(dir, user.uid, user.gid);
    chmodSync(dir, 0o700);
  }
  const asUser = user ? ['--user=mysql'] : [];
  await promisify(execFile)('mariadb-install-db', ['--no-defaults', `--datadir=${data}`, ...asUser, '--auth-root-authentication-method=normal', '--skip-test-db'], { timeout: 120_000 });
  const base = `mysql://root@127.0.0.1:${port}`;
  let server: ChildProcess | null = null;

  const answers = async (): Promise<boolean> => {
    const quiet = { warn: () => undefined, error: () => undefined, debug: () => undefined, deprecate: () => undefined };
    const probe = knex({ client: 'mysql2', connection: `${base}/mysql`, pool: { min: 0, max: 1 }, acquireConnectionTimeout: 1000, log: quiet });
    try {
      await probe.raw('SELECT 1');
      return true;
    } catch {
      return false;
    } finally {
      await probe.destroy();
    }
  };
  const start = async (): Promise<void> => {
    const args = ['--no-defaults', `--datadir=${data}`, `--port=${port}`, '--bind-address=127.0.0.1', `--socket=${join(dir, 'sock')}`, `--pid-file=${join(dir, 'pid')}`, ...asUser,
      '--skip-grant-tables', '--skip-log-bin', '--innodb-buffer-pool-size=32M', '--max-connections=60', `--log-error=${join(dir, 'log')}`];
    server = spawn(MARIADBD, args, { stdio: 'ignore' });
    for (let i = 0; i < 300; i++) {
      if (await answers()) return;
      if (server.exitCode !== null) throw new Error(`mariadbd exited with ${server.exitCode} (see ${join(dir, 'log')})`);
      await sleep(100);
    }
    throw new Error('the throwaway MariaDB did not answer within 30 s');
  };
  const stop = async (): Promise<void> => {
    const s = server;
    if (!s || s.exitCode !== null) return;
    const exited = new Promise((r) => s.once('exit', r));
    s.kill('SIGTERM');
    await exited;
  };
  await start();
  const admin = knex({ client: 'mysql2', connection: `${base}/mysql`, pool: { min: 0, max: 1 } });
  try {
    await admin.raw('CREATE DATABASE app CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin');
  } finally {
    await admin.destroy();
  }
  let destroyed = false;
  let frozen: ChildProcess | null = null;
  const thaw = (): void => {
    frozen?.kill('SIGCONT');
    frozen = null;
  };
  return {
    url: `${base}/app`,
    port,
    start,
    stop,
    freeze() {
      const s = server;
      if (!s?.pid) return [];
      s.kill('SIGSTOP');
      frozen = s;
      return [s.pid];
    },
    thaw,
    destroy() {
      if (destroyed) return;
      destroyed = true;
      thaw();
      server?.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
