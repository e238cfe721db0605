/**
 * issue 13 item 16, at process level: `npm start` stops on SIGINT/SIGTERM sent to npm alone (no
 * server left behind holding the port); a second instance on a taken port, a YAML syntax error and a
 * wrong LOG_LEVEL each stop the start with one clear line on stderr and a non-zero exit, no stack.
 */
import { expect } from 'chai';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { DIALECTS, type TestDialect } from '../../helpers/dialects';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db';
import { ROOT, TEST_JWT_SECRET } from '../../helpers/test-app';
import { freePort } from '../../helpers/free-port';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));


/** Whether nothing listens on the port: we can bind it ourselves. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** Whether any process of the group is still alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

interface Running {
  readonly proc: ChildProcess;
  readonly exited: Promise<number | string>;
  out(): string;
  err(): string;
}

function run(command: string, args: string[], env: Record<string, string>, opts: { group?: boolean } = {}): Running {
  // A process group of its own (detached): the test signals npm alone, and can clean the group up.
  const proc = spawn(command, args, { cwd: ROOT, env, detached: opts.group === true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout?.setEncoding('utf8').on('data', (c: string) => (out += c));
  proc.stderr?.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | string>((resolve) => proc.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return { proc, exited, out: () => out, err: () => err };
}

/** Resolves once /health answers 200; fails when the process ends first or the bound passes. */
async function healthy(url: string, r: Running, limitMs = 30_000): Promise<void> {
  const t = Date.now();
  for (;;) {
    if (r.proc.exitCode !== null) throw new Error(`exited during boot (${r.proc.exitCode}): ${r.err()}`);
    if (Date.now() - t > limitMs) throw new Error(`not listening within ${limitMs} ms: ${r.err()}`);
    try {
      if ((await fetch(`${url}/health`, { headers: { connection: 'close' } })).status === 200) return;
    } catch {
      /* not listening yet */
    }
    await sleep(100);
  }
}

async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The one-line error contract of a failed start: exit ≠ 0, the message, no stack trace. */
function expectOneClearLine(code: number | string, stderr: string, message: RegExp): void {
  expect(code, stderr).to.not.equal(0);
  expect(stderr).to.match(message);
  expect(stderr, 'a stack trace').to.not.match(/^\s+at /m);
  expect(stderr.trim().split('\n'), stderr).to.have.length(1);
}

async function serverEnv(db: TestDatabase, port: number, extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return {
    ...env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    IAM_JWT_SECRET: TEST_JWT_SECRET,
    IAM_BCRYPT_COST: '4',
    HOST: '127.0.0.1',
    PORT: String(port),
    // Idle keep-alive sockets end within a second, so a drain is quick.
    HTTP_KEEP_ALIVE_TIMEOUT: '1s',
    DATA_DIR: join(db.dir, 'data'),
    MIGRATIONS_DIR: join(db.dir, 'migrations'),
    CONTENT_TYPES_DIR: join(ROOT, 'content-types'),
    ...db.env,
    ...extra,
  };
}

const MAIN = join(ROOT, 'dist', 'core', 'main.js');

for (const dialect of DIALECTS) {
  describe(`process: start and stop [${dialect as TestDialect}]`, function () {
    this.timeout(60_000);
    let db: TestDatabase;
    const groups: number[] = [];
    const stray: ChildProcess[] = [];

    before(async () => {
      db = await createTestDatabase(dialect);
    });
    after(async () => {
      for (const p of stray) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
      for (const g of groups) if (groupAlive(g)) process.kill(-g, 'SIGKILL');
      await db?.drop();
    });

    it('a second instance on the same port exits non-zero with one clear line, and the first keeps serving', async () => {
      const port = await freePort();
      const env = await serverEnv(db, port);
      const first = run(process.execPath, [MAIN], env);
      stray.push(first.proc);
      await healthy(`http://127.0.0.1:${port}`, first);
      const second = run(process.execPath, [MAIN], env);
      stray.push(second.proc);
      const code = await within(second.exited, 30_000, 'the second instance exits');
      expectOneClearLine(code, second.err(), new RegExp(`^error: port ${port} is in use \\(another instance running\\?\\) — set PORT or stop it$`, 'm'));
      expect((await fetch(`http://127.0.0.1:${port}/health`, { headers: { connection: 'close' } })).status).to.equal(200);
      first.proc.kill('SIGTERM');
      expect(await within(first.exited, 20_000, 'the first instance drains')).to.equal(0);
    });

    it('log lines are written in the background: a request’s access-log line reaches stdout within a second while the server runs', async () => {
      const port = await freePort();
      const server = run(process.execPath, [MAIN], await serverEnv(db, port));
      stray.push(server.proc);
      await healthy(`http://127.0.0.1:${port}`, server);
      const id = `log-${Date.now()}`;
      await fetch(`http://127.0.0.1:${port}/api/fee-type`, { headers: { 'x-request-id': id, connection: 'close' } });
      const t = Date.now();
      while (!server.out().includes(id) && Date.now() - t < 2_000) await sleep(25);
      const line = server.out().split('\n').find((l) => l.includes(id));
      expect(line, 'the access-log line').to.be.a('string');
      expect(Date.now() - t, 'written within LOG_FLUSH_MS, not held until the buffer fills').to.be.below(1_000);
      expect(JSON.parse(line as string)).to.include({ requestId: id, method: 'GET', path: '/api/fee-type', status: 401, msg: 'request' });
      server.proc.kill('SIGTERM');
      expect(await within(server.exited, 20_000, 'the server drains')).to.equal(0);
      expect(server.out(), 'the last lines are flushed at exit').to.contain('"msg":"shut down cleanly"');
    });

    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      it(`${signal} to the npm process alone stops \`npm start\`: the server drains, exits, and the port is free`, async () => {
        const port = await freePort();
        // --ignore-scripts: the same npm → sh → node chain as `npm start`, without the prestart build
        // (the suite runs from dist/; rebuilding it under running tests is not this test's business).
        const npm = run('npm', ['start', '--ignore-scripts'], await serverEnv(db, port), { group: true });
        const pgid = npm.proc.pid as number;
        groups.push(pgid);
        await healthy(`http://127.0.0.1:${port}`, npm);
        process.kill(pgid, signal); // npm only, not its group: what a process manager or an IDE's stop button does
        await within(npm.exited, 20_000, 'npm exits');
        const t = Date.now();
        while (groupAlive(pgid) && Date.now() - t < 5_000) await sleep(50);
        expect(groupAlive(pgid), `a process of npm's group is still running after ${signal}`).to.equal(false);
        expect(await portIsFree(port), `port ${port} still taken`).to.equal(true);
        expect(npm.out()).to.match(new RegExp(`"signal":"${signal}".*"msg":"shutting down"`));
        expect(npm.out()).to.contain('"msg":"shut down cleanly"');
      });
    }
  });
}

describe('process: a bad model or setting stops the start with one clear line', function () {
  this.timeout(30_000);
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase('sqlite');
  });
  after(async () => db?.drop());

  it('a YAML syntax error: the file, line and column reach stderr', async () => {
    const models = join(db.dir, 'broken-models');
    mkdirSync(models, { recursive: true });
    writeFileSync(join(models, 'thing.yaml'), 'attributes:\n  name: { type: string\n  size: { type: integer }\n');
    const r = run(process.execPath, [MAIN], await serverEnv(db, await freePort(), { CONTENT_TYPES_DIR: models }));
    const code = await within(r.exited, 20_000, 'the start stops');
    expectOneClearLine(code, r.err(), /^error: .*broken-models\/thing\.yaml: line 3, column 3: Flow map in block collection must be sufficiently indented and end with a \}$/m);
  });

  it('an unknown LOG_LEVEL: the setting and the allowed levels reach stderr', async () => {
    const r = run(process.execPath, [MAIN], await serverEnv(db, await freePort(), { LOG_LEVEL: 'verbose' }));
    const code = await within(r.exited, 20_000, 'the start stops');
    expectOneClearLine(code, r.err(), /^error: LOG_LEVEL: "verbose" is not a log level \(one of: fatal, error, warn, info, debug, trace, silent\)$/m);
  });
});
