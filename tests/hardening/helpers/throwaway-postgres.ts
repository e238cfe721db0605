/**
 * A throwaway PostgreSQL cluster (initdb) on its own port and temp folder, so fault tests can stop and
 * start a database without touching the shared one. Runs as the `postgres` OS user when we are root.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './server-process';

export interface ThrowawayPostgres {
  readonly url: string;
  readonly port: number;
  start(): Promise<void>;
  /** `pg_ctl stop -m fast`: backends are terminated, open connections broken. */
  stop(): Promise<void>;
  destroy(): void;
}

function osUser(): { uid: number; gid: number; name: string } | null {
  if (userInfo().uid !== 0) return null;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid, name: 'postgres' };
}

export function postgresToolsAvailable(): boolean {
  try {
    execFileSync('initdb', ['--version'], { stdio: 'ignore' });
    execFileSync('pg_ctl', ['--version'], { stdio: 'ignore' });
    if (userInfo().uid === 0) execFileSync('id', ['postgres'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export async function createThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'ris-pg-'));
  const data = join(dir, 'data');
  const user = osUser();
  if (user) {
    chownSync(dir, user.uid, user.gid);
    chmodSync(dir, 0o700);
  }
  const options = { timeout: 60_000, ...(user ? { uid: user.uid, gid: user.gid } : {}), env: { PATH: process.env.PATH ?? '', LC_ALL: 'C' } };
  // async, so the load generator in this same process keeps running while the cluster stops or starts
  const run = async (cmd: string, args: string[]): Promise<void> => {
    await promisify(execFile)(cmd, args, options);
  };
  await run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  const start = (): Promise<void> =>
    run('pg_ctl', ['-D', data, '-w', '-t', '30', '-l', join(dir, 'log'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=50`, 'start']);
  await start();
  let destroyed = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop: () => run('pg_ctl', ['-D', data, '-w', '-t', '30', '-m', 'fast', 'stop']),
    destroy() {
      if (destroyed) return;
      destroyed = true;
      try {
        execFileSync('pg_ctl', ['-D', data, '-w', '-t', '30', '-m', 'immediate', 'stop'], { ...options, stdio: 'pipe' });
      } catch {
        /* already stopped */
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
