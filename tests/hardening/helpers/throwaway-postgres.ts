/**
 * A throwaway PostgreSQL cluster (initdb) on its own port and temp folder, so fault tests can stop and
 * start a database without touching the shared one. Runs as the `postgres` OS user when we are root.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './server-process';

export interface ThrowawayPostgres {
  readonly url: string;
  readonly port: number;
  start(): Promise<void>;
  /** `pg_ctl stop -m fast`: backends are terminated, open connections broken. */
  stop(): Promise<void>;
  /**
   * SIGSTOP to the postmaster and every process under it: the cluster hangs without closing a
   * socket (connections stay open, new ones are accepted by the kernel but never answered).
   * Answers the pids stopped.
   */
  freeze(): number[];
  /** SIGCONT to the processes `freeze` stopped. */
  thaw(): void;
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

/** `root` and its descendants, from /proc (parent pid is field 4 of /proc/<pid>/stat). */
function processTree(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // the command name (field 2) may hold spaces; the fields after its closing parenthesis do not
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parentOf.set(Number(name), ppid);
    } catch {
      /* ended meanwhile */
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, ppid] of parentOf) if (ppid === tree[i]) tree.push(pid);
  return tree;
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
  let frozen: number[] = [];
  const thaw = (): void => {
    for (const pid of frozen) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        /* gone */
      }
    }
    frozen = [];
  };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop: () => run('pg_ctl', ['-D', data, '-w', '-t', '30', '-m', 'fast', 'stop']),
    freeze() {
      const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      // the postmaster first, so that it forks no new backend while its children are being stopped
      process.kill(postmaster, 'SIGSTOP');
      frozen.push(postmaster);
      for (const pid of processTree(postmaster).slice(1)) {
        process.kill(pid, 'SIGSTOP');
        frozen.push(pid);
      }
      return [...frozen];
    },
    thaw,
    destroy() {
      if (destroyed) return;
      destroyed = true;
      thaw();
      try {
        execFileSync('pg_ctl', ['-D', data, '-w', '-t', '30', '-m', 'immediate', 'stop'], { ...options, stdio: 'pipe' });
      } catch {
        /* already stopped */
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
