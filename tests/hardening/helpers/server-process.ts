/** A real server process (`node dist/core/main.js`) on a fresh database, for shutdown, fault and soak scenarios. */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, TEST_ADMIN, TEST_JWT_SECRET } from '../../helpers/test-app';
import { bearerTokens } from './load';
import { freePort } from '../../helpers/free-port';

export { freePort };

export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  readonly proc: ChildProcess;
  /** An admin's access token (record calls need one with the identity plugin); `send` adds it by itself. */
  readonly token: string | null;
  /** stdout JSON lines parsed so far (pino). */
  readonly logs: Record<string, unknown>[];
  /** stderr text so far. */
  stderr(): string;
  /** Resident set size in MiB, from /proc. */
  rssMiB(): number;
  /** Resolves with the exit code (or the signal name) once the process has ended. */
  readonly exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): void;
}


/** Starts the server with `env` (DATABASE_URL, DATA_DIR, MIGRATIONS_DIR …) and waits until it listens. */
export async function startServerProcess(env: Record<string, string>, opts: { bootTimeoutMs?: number; nodeArgs?: readonly string[] } = {}): Promise<ServerProcess> {
  const port = await freePort();
  const fullEnv = { PATH: process.env.PATH ?? '', NODE_ENV: 'test', IAM_JWT_SECRET: TEST_JWT_SECRET, IAM_BCRYPT_COST: '4', LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: String(port), ...env };
  const proc = spawn(process.execPath, [...(opts.nodeArgs ?? []), join(ROOT, 'dist', 'core', 'main.js')], {
    cwd: ROOT,
    env: fullEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  let err = '';
  let partial = '';
  proc.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const l of lines) {
      try {
        logs.push(JSON.parse(l) as Record<string, unknown>);
      } catch {
        logs.push({ msg: l });
      }
    }
  });
  proc.stderr?.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | string>((resolve) => proc.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const deadline = Date.now() + (opts.bootTimeoutMs ?? 20_000);
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited during boot (${proc.exitCode}): ${err}`);
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`server did not listen within the boot timeout: ${err}`);
    }
    try {
      if ((await fetch(`${url}/health`)).status === 200) break;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const pid = proc.pid as number;
  const token = await adminToken(url, fullEnv);
  if (token) bearerTokens.set(url, token);
  return {
    url,
    pid,
    proc,
    token,
    logs,
    stderr: () => err,
    rssMiB() {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      return m ? Number(m[1]) / 1024 : NaN;
    },
    exited,
    kill: (signal = 'SIGTERM') => void proc.kill(signal),
  };
}

/** With the identity plugin (its `user:create` command exists): an admin made by the CLI, signed in. */
async function adminToken(url: string, env: Record<string, string>): Promise<string | null> {
  const cli = spawnSync(process.execPath, [join(ROOT, 'dist', 'admin-cli', 'index.js'), 'user:create', '--username', TEST_ADMIN.username, '--email', TEST_ADMIN.email, '--password', TEST_ADMIN.password, '--roles', 'admin'], { cwd: ROOT, env, encoding: 'utf8', timeout: 30_000 });
  if (cli.status !== 0 && !/already taken/.test(cli.stderr)) return null;
  const res = await fetch(`${url}/api/iam/authenticate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: TEST_ADMIN.username, password: TEST_ADMIN.password }) });
  if (res.status !== 200) return null;
  return ((await res.json()) as { data: { accessToken: string } }).data.accessToken;
}
