/**
 * A throwaway Redis (redis-server on its own port, no persistence), so a scenario can stop, kill and
 * restart it without touching the shared one on 6379.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './server-process';

export interface ThrowawayRedis {
  readonly url: string;
  /** Starts it (again) on the same port; resolves once it answers PING. */
  start(): Promise<void>;
  /** SIGSTOP: the server hangs with its connections open. */
  freeze(): void;
  /** SIGKILL (also of a frozen server); resolves once it has exited. */
  kill(): Promise<void>;
  /** Connections the server has open, besides the one asking. */
  clients(): number;
  destroy(): Promise<void>;
}

export function redisToolsAvailable(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0 && spawnSync('redis-cli', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** PING over a raw socket: +PONG within `timeoutMs`? */
function pings(port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ host: '127.0.0.1', port });
    const done = (ok: boolean): void => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.on('error', () => done(false));
    s.on('connect', () => s.write('PING\r\n'));
    s.on('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

export async function createThrowawayRedis(): Promise<ThrowawayRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'ris-redis-'));
  let proc: ChildProcess | null = null;
  const start = async (): Promise<void> => {
    proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
    const deadline = Date.now() + 10_000;
    while (!(await pings(port, 500))) {
      if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`redis-server on ${port} did not answer`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const kill = async (): Promise<void> => {
    const p = proc;
    proc = null;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    start,
    freeze: () => void proc?.kill('SIGSTOP'),
    kill,
    clients() {
      const r = spawnSync('redis-cli', ['-p', String(port), 'CLIENT', 'LIST'], { encoding: 'utf8', timeout: 5000 });
      return r.status === 0 ? r.stdout.split('\n').filter((l) => l.startsWith('id=')).length - 1 : -1;
    },
    async destroy() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
