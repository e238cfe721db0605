/** A real server process (`node dist/core/main.js`) on a fresh database, for shutdown, fault and soak scenarios. */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ROOT, TEST_JWT_SECRET } from '../../helpers/test-app';

export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  readonly proc: ChildProcess;
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

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Starts the server with `env` (DATABASE_URL, DATA_DIR, MIGRATIONS_DIR …) and waits until it listens. */
export async function startServerProcess(env: Record<string, string>, opts: { bootTimeoutMs?: number } = {}): Promise<ServerProcess> {
  const port = await freePort();
  const proc = spawn(process.execPath, [join(ROOT, 'dist', 'core', 'main.js')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', IAM_JWT_SECRET: TEST_JWT_SECRET, IAM_BCRYPT_COST: '4', LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: String(port), ...env },
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
  return {
    url,
    pid,
    proc,
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
