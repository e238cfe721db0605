/** The admin CLI as a separate process against a test app's database (dist/admin-cli/index.js). */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, type TestApp } from './test-app';

export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly out: string;
  readonly err: string;
}

/**
 * Spawned asynchronously: a synchronous spawn would freeze this process, the app's server with it, past its
 * keep-alive timeout, and the next request on a pooled socket would meet ECONNRESET.
 */
/** `app`: a test app, or only the environment of a database no app runs on (an unmigrated one, one that does not answer). */
export function runCli(app: Pick<TestApp, 'env'>, args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist', 'admin-cli', 'index.js'), ...args], { env: { ...process.env, ...app.env, ...env }, timeout: 30_000 });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { out += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { err += d; });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, out, err }));
  });
}
