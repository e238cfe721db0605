/**
 * CONTRACT: logout ends the session's access tokens; with several server processes sharing the database,
 * within one second. One server runs in the test process, the other as a separate OS process.
 */
import { expect } from 'chai';
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { DIALECTS } from '../../helpers/dialects';
import { client, type Client } from '../../helpers/http';
import { ROOT, startTestApp, type TestApp } from '../../helpers/test-app';
import { freePort } from '../../helpers/free-port';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));


/** Polls until `probe` answers `status`; the milliseconds it took. */
async function until(probe: () => Promise<number>, status: number, limitMs: number): Promise<number> {
  const t = Date.now();
  while (Date.now() - t < limitMs) {
    if ((await probe()) === status) return Date.now() - t;
    await sleep(25);
  }
  throw new Error(`not ${status} within ${limitMs} ms`);
}

const VARIANTS = [
  { name: 'database only', env: {}, boundMs: 1000 },
  { name: 'Redis revocation bus', env: { REDIS_URL: 'redis://127.0.0.1:6379' }, boundMs: 400 },
] as const;

for (const dialect of DIALECTS) {
  for (const variant of VARIANTS) describe(`identity: revocation across server processes, ${variant.name} [${dialect}]`, () => {
    let a: TestApp;
    let child: ChildProcess;
    let b: Client;

    before(async function () {
      this.timeout(30_000);
      a = await startTestApp(dialect, { env: { ...variant.env } });
      const port = await freePort();
      child = spawn(process.execPath, [join(ROOT, 'dist', 'core', 'main.js')], { env: { ...process.env, ...a.env, PORT: String(port), HOST: '127.0.0.1', AUTO_MIGRATE: 'false' }, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      b = client(`http://127.0.0.1:${port}`);
      const t = Date.now();
      for (;;) {
        try {
          if ((await b.get('/health/ready')).status === 200) break;
        } catch {
          /* not listening yet */
        }
        if (child.exitCode !== null || Date.now() - t > 20_000) throw new Error(`second server did not start: ${stderr}`);
        await sleep(100);
      }
    });
    after(async () => {
      if (child && child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      await a?.close();
    });

    it('a token from one process works on the other; logout on A is refused on B within the bound', async () => {
      const u = await a.createUser();
      const onB = b.withToken(u.accessToken);
      expect((await onB.get('/api/iam/me')).status).to.equal(200);
      expect((await onB.get('/api/institute')).status).to.equal(200); // B's cache now holds the session
      expect((await a.anon.post('/api/iam/logout', { refreshToken: u.refreshToken })).status).to.equal(200);
      const ms = await until(async () => (await onB.get('/api/institute')).status, 401, 1500);
      expect(ms).to.be.below(variant.boundMs);
    });

    it('logout allDevices on B ends the sessions A serves within one second; refresh on A is refused at once', async () => {
      const u = await a.createUser();
      const second = await a.signIn(u.username, u.password);
      expect((await second.http.get('/api/iam/me')).status).to.equal(200);
      expect((await b.post('/api/iam/logout', { refreshToken: u.refreshToken, allDevices: true })).status).to.equal(200);
      const ms = await until(async () => (await second.http.get('/api/iam/me')).status, 401, 1500);
      expect(ms).to.be.below(variant.boundMs);
      expect((await a.anon.post('/api/iam/refresh-tokens', { refreshToken: second.refreshToken })).status).to.equal(401);
    });

    it('an API token revoked or regenerated on A is refused on B within the bound (issue 16)', async () => {
      const made = await a.http.post('/api/iam/api-tokens', { name: `multi-${Date.now()}`, kind: 'read-only' });
      expect(made.status).to.equal(200);
      const { id, secret } = made.body.data as { id: number; secret: string };
      expect((await b.withToken(secret).get('/api/institute')).status).to.equal(200); // B's cache now holds it
      const regenerated = await a.http.post(`/api/iam/api-tokens/${id}/regenerate`, {});
      expect(regenerated.status).to.equal(200);
      const fresh = regenerated.body.data.secret as string;
      expect(await until(async () => (await b.withToken(secret).get('/api/institute')).status, 401, 1500)).to.be.below(variant.boundMs);
      expect((await b.withToken(fresh).get('/api/institute')).status).to.equal(200);
      expect((await a.http.del(`/api/iam/api-tokens/${id}`)).status).to.equal(200);
      expect(await until(async () => (await b.withToken(fresh).get('/api/institute')).status, 401, 1500)).to.be.below(variant.boundMs);
    });
  });
}
