/** Issue 16, API tokens: admins make them, they act by their own permissions, and die at once when revoked. */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { DIALECTS } from '../../helpers/dialects';
import { type Client, replyObservers, type Reply } from '../../helpers/http';
import { SecretWatch } from '../../helpers/no-secrets';
import { ROOT, startTestApp, type TestApp, type TestUser } from '../../helpers/test-app';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Longer than the plugin's 0.5 s cache of resolved tokens: what another node sees within a second. */
const CACHE_PASSES = 600;

for (const dialect of DIALECTS) {
  describe(`identity: API tokens [${dialect}]`, () => {
    let app: TestApp;
    let user: TestUser;
    let n = 0;
    const table = () => app.deps.registry.get('api-token')!.table;
    const as = (secret: string): Client => app.anon.withToken(secret);
    const create = async (body: Record<string, unknown>) => {
      const res = await app.http.post('/api/iam/api-tokens', { name: `token-${++n}`, ...body });
      expect(res.status, res.text).to.equal(200);
      return res.body.data as { id: number; secret: string; name: string; kind: string; permissions: string[]; expiresAt: string | null; lastUsedAt: string | null };
    };
    const newInstitute = () => ({ name: `Institute ${++n}`, code: `I${n}${Date.now().toString(36)}` });
    const listed = async (id: number) => ((await app.http.get('/api/iam/api-tokens')).body.data as { id: number; lastUsedAt: string | null; name: string }[]).find((t) => t.id === id);
    let instituteId: number;
    const watch = new SecretWatch();
    /** Every reply of this file's clients, to count where each secret appeared. */
    const replies: string[] = [];
    const record = (r: Reply): void => {
      replies.push(r.text);
    };

    before(async () => {
      watch.start();
      replyObservers.push(record);
      app = await startTestApp(dialect);
      user = await app.createUser();
      const res = await app.http.post('/api/institute', newInstitute());
      expect(res.status).to.equal(200);
      instituteId = res.body.data.id;
    });
    after(async () => {
      try {
        // No reply ever carried a stored hash; each secret appeared in exactly one reply (its creation or regeneration).
        expect(await watch.checkStoredHashes(app.deps.db)).to.be.greaterThan(0);
        const secrets = new Set(replies.join('\n').match(/ris_[A-Za-z0-9_-]{43}/g) ?? []);
        expect(secrets.size).to.be.greaterThan(10);
        for (const secret of secrets) expect(replies.filter((t) => t.includes(secret)).length, secret).to.equal(1);
      } finally {
        watch.stop();
        replyObservers.splice(replyObservers.indexOf(record), 1);
        await app?.close();
      }
    });

    describe('kinds', () => {
      it('read-only: find and findOne on every model, no write (403)', async () => {
        const t = await create({ kind: 'read-only' });
        expect(t.secret).to.match(/^ris_[A-Za-z0-9_-]{43}$/);
        expect(t.kind).to.equal('read-only');
        expect(t.permissions).to.deep.equal([]);
        const c = as(t.secret);
        expect((await c.get('/api/institute')).status).to.equal(200);
        expect((await c.get(`/api/institute/${instituteId}`)).status).to.equal(200);
        expect((await c.get('/api/fee-type')).status).to.equal(200);
        expect((await c.get('/api/role')).status, 'every model, admin-only ones too').to.equal(200);
        const write = await c.post('/api/institute', newInstitute());
        expect(write.status).to.equal(403);
        expect(write.body.error.message).to.contain('institute.create');
        expect((await c.patch(`/api/institute/${instituteId}`, { city: 'X' })).status).to.equal(403);
        expect((await c.del(`/api/institute/${instituteId}`)).status).to.equal(403);
      });

      it('custom: exactly its list; writes record no author', async () => {
        const t = await create({ kind: 'custom', permissions: ['institute.find', 'institute.create', 'institute.find'] });
        expect(t.permissions).to.deep.equal(['institute.create', 'institute.find']);
        const c = as(t.secret);
        expect((await c.get('/api/institute')).status).to.equal(200);
        const made = await c.post('/api/institute', newInstitute());
        expect(made.status, made.text).to.equal(200);
        expect(made.body.data.createdBy).to.equal(null);
        expect((await c.get(`/api/institute/${instituteId}`)).status).to.equal(403);
        expect((await c.patch(`/api/institute/${instituteId}`, { city: 'X' })).status).to.equal(403);
        expect((await c.get('/api/fee-type')).status).to.equal(403);
        expect((await c.get('/api/user')).status).to.equal(403);
      });

      it('full-access: every permission', async () => {
        const c = as((await create({ kind: 'full-access' })).secret);
        const made = await c.post('/api/institute', newInstitute());
        expect(made.status, made.text).to.equal(200);
        const id = made.body.data.id as number;
        expect((await c.patch(`/api/institute/${id}`, { city: 'Springfield' })).status).to.equal(200);
        expect((await c.get(`/api/institute/${id}`)).body.city).to.equal('Springfield');
        expect((await c.get('/api/user')).status).to.equal(200);
        expect((await c.del(`/api/institute/${id}`)).status).to.equal(200);
      });

      it('an unknown ris_ token → 401 on the record API', async () => {
        const res = await as(`ris_${'A'.repeat(43)}`).get('/api/institute');
        expect(res.status).to.equal(401);
        expect(res.body.error.message).to.match(/API token/);
      });
    });

    describe('creation input', () => {
      it('unknown custom permissions → 422 naming them; nothing is stored', async () => {
        const before = (await app.http.get('/api/iam/api-tokens')).body.data.length;
        const res = await app.http.post('/api/iam/api-tokens', { name: 'bad-perms', kind: 'custom', permissions: ['institute.find', 'institute.fly', 'nothing.find'] });
        expect(res.status).to.equal(422);
        const msg = res.body.error.details.fields.permissions.join(' ');
        expect(msg).to.contain('institute.fly').and.contain('nothing.find');
        expect(msg).to.not.match(/institute\.find(?!\w)/);
        expect((await app.http.get('/api/iam/api-tokens')).body.data.length).to.equal(before);
      });

      it('bad kind, lifetime, missing name, permissions on a fixed kind, unknown field → 422 naming each field', async () => {
        const cases: [Record<string, unknown>, string][] = [
          [{ name: 'k1', kind: 'admin' }, 'kind'],
          [{ name: 'k2' }, 'kind'],
          [{ kind: 'read-only' }, 'name'],
          [{ name: '   ', kind: 'read-only' }, 'name'],
          [{ name: 'k3', kind: 'read-only', lifetimeDays: 10 }, 'lifetimeDays'],
          [{ name: 'k4', kind: 'read-only', lifetimeDays: '7' }, 'lifetimeDays'],
          [{ name: 'k5', kind: 'read-only', permissions: ['institute.create'] }, 'permissions'],
          [{ name: 'k6', kind: 'custom' }, 'permissions'],
          [{ name: 'k7', kind: 'custom', permissions: [] }, 'permissions'],
          [{ name: 'k8', kind: 'read-only', secret: 'ris_mine' }, 'secret'],
        ];
        for (const [body, field] of cases) {
          const res = await app.http.post('/api/iam/api-tokens', body);
          expect(res.status, JSON.stringify(body)).to.equal(422);
          expect(res.body.error.details.fields, JSON.stringify(body)).to.have.property(field);
        }
        expect((await app.http.post('/api/iam/api-tokens', [])).status).to.equal(400);
      });

      it('a duplicate name → 409', async () => {
        await create({ name: 'twice', kind: 'read-only' });
        const res = await app.http.post('/api/iam/api-tokens', { name: 'twice', kind: 'full-access' });
        expect(res.status).to.equal(409);
        expect(res.body.error.details.fields).to.have.property('name');
      });
    });

    describe('the secret', () => {
      it('is shown once: the list, the rename answer and the table never carry it; the table holds a keyed hash', async () => {
        const t = await create({ kind: 'read-only', description: 'static site build' });
        const list = await app.http.get('/api/iam/api-tokens');
        expect(list.status).to.equal(200);
        expect(list.text).to.not.contain(t.secret);
        const mine = (list.body.data as Record<string, unknown>[]).find((x) => x.id === t.id)!;
        expect(mine).to.have.keys(['id', 'name', 'description', 'kind', 'permissions', 'expiresAt', 'lastUsedAt', 'createdAt', 'updatedAt']);
        expect(mine.description).to.equal('static site build');
        const renamed = await app.http.patch(`/api/iam/api-tokens/${t.id}`, { name: `${t.name}-renamed` });
        expect(renamed.status).to.equal(200);
        expect(renamed.body.data).to.not.have.property('secret');
        expect(renamed.body.data.name).to.equal(`${t.name}-renamed`);
        const row = (await app.deps.db(table()).where('id', t.id).first()) as Record<string, unknown>;
        expect(row.token_hash).to.match(/^[0-9a-f]{64}$/);
        for (const v of Object.values(row)) expect(String(v)).to.not.contain(t.secret.slice(4));
        // Keyed: the plain SHA-256 of the secret (what a stolen table could be checked against) is not what is stored.
        const { createHash } = await import('node:crypto');
        expect(row.token_hash).to.not.equal(createHash('sha256').update(t.secret).digest('hex'));
        // The rename did not change the credential.
        expect((await as(t.secret).get('/api/institute')).status).to.equal(200);
      });

      it('rename: only name and description (others → 422); unknown id → 404', async () => {
        const t = await create({ kind: 'read-only' });
        const res = await app.http.patch(`/api/iam/api-tokens/${t.id}`, { kind: 'full-access' });
        expect(res.status).to.equal(422);
        expect(res.body.error.details.fields).to.have.property('kind');
        expect((await app.http.patch('/api/iam/api-tokens/999999', { name: 'x' })).status).to.equal(404);
        expect((await app.http.patch('/api/iam/api-tokens/abc', { name: 'x' })).status).to.equal(404);
        expect((await app.http.del('/api/iam/api-tokens/999999')).status).to.equal(404);
        expect((await app.http.post('/api/iam/api-tokens/999999/regenerate', {})).status).to.equal(404);
      });
    });

    describe('lifetime, revocation, regeneration', () => {
      it('lifetimeDays 7/30/90 set expiresAt; null or absent never expire', async () => {
        for (const days of [7, 30, 90]) {
          const t = await create({ kind: 'read-only', lifetimeDays: days });
          const left = Date.parse(t.expiresAt!) - Date.now();
          expect(left).to.be.within(days * 86_400_000 - 60_000, days * 86_400_000 + 1000);
        }
        expect((await create({ kind: 'read-only', lifetimeDays: null })).expiresAt).to.equal(null);
        expect((await create({ kind: 'read-only' })).expiresAt).to.equal(null);
      });

      it('an expired token → 401 (expiry reached: expires_at moved into the past in the table)', async () => {
        const t = await create({ kind: 'read-only', lifetimeDays: 7 });
        const c = as(t.secret);
        expect((await c.get('/api/institute')).status).to.equal(200);
        await app.deps.db(table()).where('id', t.id).update({ expires_at: new Date(Date.now() - 1000).toISOString() });
        await sleep(CACHE_PASSES);
        const res = await c.get('/api/institute');
        expect(res.status).to.equal(401);
        expect(res.body.error.message).to.contain('expired');
      });

      it('revoke → 401 at once (even right after a cached use), gone from the list', async () => {
        const t = await create({ kind: 'full-access' });
        const c = as(t.secret);
        expect((await c.get('/api/institute')).status).to.equal(200);
        const res = await app.http.del(`/api/iam/api-tokens/${t.id}`);
        expect(res.status).to.equal(200);
        expect(res.body.data.id).to.equal(t.id);
        expect(res.body.data).to.not.have.property('secret');
        expect((await c.get('/api/institute')).status).to.equal(401);
        expect(await listed(t.id)).to.equal(undefined);
        expect((await app.http.del(`/api/iam/api-tokens/${t.id}`)).status).to.equal(404);
      });

      it('regenerate → the old secret 401 at once, the new one 200; same id, name and kind', async () => {
        const t = await create({ kind: 'read-only' });
        expect((await as(t.secret).get('/api/institute')).status).to.equal(200);
        const res = await app.http.post(`/api/iam/api-tokens/${t.id}/regenerate`, {});
        expect(res.status).to.equal(200);
        const fresh = res.body.data.secret as string;
        expect(fresh).to.match(/^ris_/).and.not.equal(t.secret);
        expect(res.body.data).to.include({ id: t.id, name: t.name, kind: 'read-only' });
        expect((await as(t.secret).get('/api/institute')).status).to.equal(401);
        expect((await as(fresh).get('/api/institute')).status).to.equal(200);
        expect((await app.http.get('/api/iam/api-tokens')).text).to.not.contain(fresh);
      });
    });

    describe('lastUsedAt', () => {
      it('set on use, not rewritten within a minute, rewritten once a minute has passed', async () => {
        const t = await create({ kind: 'read-only' });
        expect(t.lastUsedAt).to.equal(null);
        const c = as(t.secret);
        const before = Date.now();
        expect((await c.get('/api/institute')).status).to.equal(200);
        const first = (await listed(t.id))!.lastUsedAt!;
        expect(Date.parse(first)).to.be.within(before - 1000, Date.now() + 1000);
        for (let i = 0; i < 2; i++) {
          await sleep(CACHE_PASSES); // past the cache: the token is looked up again
          expect((await c.get('/api/institute')).status).to.equal(200);
        }
        expect((await listed(t.id))!.lastUsedAt).to.equal(first);
        // A minute later (moved back in the table rather than waited for), the next use writes it again.
        const minuteAgo = new Date(Date.now() - 61_000).toISOString();
        await app.deps.db(table()).where('id', t.id).update({ last_used_at: minuteAgo });
        await sleep(CACHE_PASSES);
        const again = Date.now();
        expect((await c.get('/api/institute')).status).to.equal(200);
        expect(Date.parse((await listed(t.id))!.lastUsedAt!)).to.be.within(again - 1000, Date.now() + 1000);
      });

      it('a lastUsedAt another node wrote less than a minute ago is left alone', async () => {
        const t = await create({ kind: 'read-only' });
        const c = as(t.secret);
        const halfMinuteAgo = new Date(Date.now() - 30_000).toISOString();
        await app.deps.db(table()).where('id', t.id).update({ last_used_at: halfMinuteAgo });
        const all = await Promise.all(Array.from({ length: 8 }, () => c.get('/api/institute')));
        expect(all.every((r) => r.status === 200)).to.equal(true);
        expect((await listed(t.id))!.lastUsedAt).to.equal(halfMinuteAgo);
      });
    });

    describe('what a token cannot reach', () => {
      it('/api/iam account endpoints and token management: 403, also for a full-access token', async () => {
        const t = await create({ kind: 'full-access' });
        const c = as(t.secret);
        const calls: [string, Promise<{ status: number; body: { error?: { message: string } } }>][] = [
          ['me', c.get('/api/iam/me')],
          ['change-password', c.post('/api/iam/change-password', { currentPassword: 'whatever-1', newPassword: 'whatever-2' })],
          ['logout', c.post('/api/iam/logout', { refreshToken: app.admin!.refreshToken })],
          ['list', c.get('/api/iam/api-tokens')],
          ['create', c.post('/api/iam/api-tokens', { name: 'from-a-token', kind: 'full-access' })],
          ['rename', c.patch(`/api/iam/api-tokens/${t.id}`, { name: 'x' })],
          ['regenerate', c.post(`/api/iam/api-tokens/${t.id}/regenerate`, {})],
          ['revoke', c.del(`/api/iam/api-tokens/${t.id}`)],
        ];
        for (const [what, call] of calls) {
          const res = await call;
          expect(res.status, what).to.equal(403);
          expect(res.body.error!.message, what).to.contain('API token');
        }
        // Nothing happened: the admin's session lives on, the token is unchanged, no token was made.
        expect((await app.http.get('/api/iam/me')).status).to.equal(200);
        expect((await c.get('/api/institute')).status).to.equal(200);
        expect((await listed(t.id))!.name).to.equal(t.name);
        expect(((await app.http.get('/api/iam/api-tokens')).body.data as { name: string }[]).some((x) => x.name === 'from-a-token')).to.equal(false);
      });

      it('a refresh-token field holding an API token is no refresh token (401)', async () => {
        const t = await create({ kind: 'full-access' });
        expect((await app.anon.post('/api/iam/refresh-tokens', { refreshToken: t.secret })).status).to.equal(401);
        expect((await app.anon.post('/api/iam/logout', { refreshToken: t.secret })).status).to.equal(401);
      });

      it('only admins manage tokens: a signed-in user → 403, no token → 401', async () => {
        const t = await create({ kind: 'read-only' });
        for (const [c, status] of [[user.http, 403], [app.anon, 401]] as const) {
          expect((await c.get('/api/iam/api-tokens')).status).to.equal(status);
          expect((await c.post('/api/iam/api-tokens', { name: 'mine', kind: 'full-access' })).status).to.equal(status);
          expect((await c.patch(`/api/iam/api-tokens/${t.id}`, { name: 'mine' })).status).to.equal(status);
          expect((await c.post(`/api/iam/api-tokens/${t.id}/regenerate`, {})).status).to.equal(status);
          expect((await c.del(`/api/iam/api-tokens/${t.id}`)).status).to.equal(status);
        }
        expect((await as(t.secret).get('/api/institute')).status).to.equal(200);
      });
    });

    describe('CLI', () => {
      // Asynchronous: a synchronous spawn would stall the in-process server for the command's duration.
      const cli = (...args: string[]) =>
        new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
          execFile(process.execPath, [join(ROOT, 'dist', 'admin-cli', 'index.js'), ...args], { env: { ...process.env, ...app.env }, encoding: 'utf8', timeout: 30_000 }, (error, out, err) => {
            resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out, err });
          });
        });

      it('token:create prints a working secret once; token:list never shows it; token:revoke (another process) → 401 within a second', async () => {
        const r = await cli('token:create', '--name', 'ci', '--kind', 'read-only', '--days', '30');
        expect(r.code, r.err).to.equal(0);
        const secrets = r.out.match(/ris_[A-Za-z0-9_-]{43}/g) ?? [];
        expect(secrets).to.have.length(1);
        const secret = secrets[0] ?? '';
        const c = as(secret);
        expect((await c.get('/api/institute')).status).to.equal(200);
        expect((await c.post('/api/institute', newInstitute())).status).to.equal(403);
        const t = (await app.http.get('/api/iam/api-tokens')).body.data.find((x: { name: string }) => x.name === 'ci');
        expect(Date.parse(t.expiresAt) - Date.now()).to.be.within(30 * 86_400_000 - 60_000, 30 * 86_400_000 + 1000);
        const list = await cli('token:list');
        expect(list.code, list.err).to.equal(0);
        expect(list.out).to.contain('ci').and.not.contain(secret);
        const bad = await cli('token:create', '--name', 'ci-bad', '--kind', 'custom', '--permissions', 'institute.fly');
        expect(bad.code).to.not.equal(0);
        expect(bad.err).to.contain('institute.fly');
        const revoked = await cli('token:revoke', 'ci');
        expect(revoked.code, revoked.err).to.equal(0);
        await sleep(1000);
        expect((await c.get('/api/institute')).status).to.equal(401);
      });
    });
  });
}
