/**
 * Issue 8 §6: two server processes on different ports sharing one PostgreSQL database, as behind a
 * load balancer (TRUST_PROXY on; the client address comes from X-Forwarded-For).
 * - Rate limits: with REDIS_URL, sign-in attempts split alternately between node A and node B are
 *   refused (429) at the same attempt as on one node, per account and per address. Without Redis each
 *   node counts alone, so the pair lets through twice as many; that variant shows the difference.
 * - Role changes: an admin on A removes a permission from a role (PATCH /api/role/:id) or a role from
 *   a user (PATCH /api/user/:id); a user holding it is refused (403) on B within a second, and allowed
 *   again within a second once it is granted back.
 * Session revocation across processes (logout on one, 401 on the other within a second, with and
 * without Redis) is tests/api/iam/multi-process.test.ts.
 */
import { expect } from 'chai';
import { figures, send } from './helpers/load';
import { attemptsUntil429, call, createUserOver, firstId, msUntil, type Nodes, REDIS_URL, startNodes } from './helpers/nodes';
import type { ServerProcess } from './helpers/server-process';

const PER_ACCOUNT = 5;
const PER_ADDRESS = 12;
const LIMITS = { TRUST_PROXY: 'true', IAM_RATE_LIMIT_PER_ACCOUNT: String(PER_ACCOUNT), IAM_RATE_LIMIT_PER_ADDRESS: String(PER_ADDRESS), IAM_RATE_LIMIT_WINDOW: '1m' };
/** Issue 8: role changes and revocations reach every node within one second. */
const REACH_MS = 1000;
const ROUNDS = 3;

const VARIANTS = [
  { name: 'PostgreSQL + Redis', env: { REDIS_URL }, shared: true },
  { name: 'PostgreSQL, no Redis', env: {}, shared: false },
] as const;

let scenario = 0;
/** A client address of its own per scenario (TEST-NET-2), so scenarios never share an address counter. */
const freshAddress = (): string => `198.51.100.${++scenario}`;

for (const variant of VARIANTS) {
  describe(`several nodes: two processes, ${variant.name}`, function () {
    this.timeout(90_000);
    let cluster: Nodes;
    let a: ServerProcess;
    let b: ServerProcess;

    before(async function () {
      this.timeout(60_000);
      cluster = await startNodes(2, { ...LIMITS, ...variant.env });
      [a, b] = cluster.nodes;
      if (!a.token) throw new Error(`node A has no admin token: ${a.stderr()}`);
    });
    after(async () => cluster?.close());
    afterEach(() => {
      for (const [name, n] of [['A', a], ['B', b]] as const) expect(n.proc.exitCode ?? n.proc.signalCode, `node ${name} ended: ${n.stderr()}`).to.equal(null);
    });

    it(`per account: sign-ins split A/B are refused at the ${variant.shared ? 'same attempt as on one node' : 'per-node count (each node counts alone)'}`, async () => {
      const single = await attemptsUntil429([a], () => ({ username: 'solo-victim', password: 'wrong-password' }), freshAddress(), 3 * PER_ACCOUNT);
      const split = await attemptsUntil429([a, b], () => ({ username: 'split-victim', password: 'wrong-password' }), freshAddress(), 3 * PER_ACCOUNT);
      // once refused, both nodes keep refusing that account (from yet another address)
      const other = freshAddress();
      const afterwards = [(await call(a.url, 'POST', '/api/iam/authenticate', { body: { username: 'split-victim', password: 'x' }, headers: { 'x-forwarded-for': other } })).status, (await call(b.url, 'POST', '/api/iam/authenticate', { body: { username: 'split-victim', password: 'x' }, headers: { 'x-forwarded-for': other } })).status];
      figures(`rate limit per account, ${variant.name}`, { limit: PER_ACCOUNT, oneNodeFirst429: single.first429, splitFirst429: split.first429, splitStatuses: split.statuses.join(','), nextOnAandB: afterwards });

      expect(single.first429, 'one node').to.equal(PER_ACCOUNT + 1);
      expect(single.statuses.slice(0, PER_ACCOUNT).every((s) => s === 401)).to.equal(true);
      expect(split.first429, 'split across A and B').to.equal(variant.shared ? PER_ACCOUNT + 1 : 2 * PER_ACCOUNT + 1);
      expect(split.statuses.slice(0, -1).every((s) => s === 401)).to.equal(true);
      expect(afterwards, 'both nodes refuse the account afterwards').to.deep.equal([429, 429]);
    });

    it(`per address: many accounts from one address split A/B are refused at the ${variant.shared ? 'same attempt as on one node' : 'per-node count'}`, async () => {
      const single = await attemptsUntil429([a], (i) => ({ username: `solo-${i}`, password: 'wrong-password' }), freshAddress(), 3 * PER_ADDRESS);
      const split = await attemptsUntil429([a, b], (i) => ({ username: `split-${i}`, password: 'wrong-password' }), freshAddress(), 3 * PER_ADDRESS);
      figures(`rate limit per address, ${variant.name}`, { limit: PER_ADDRESS, oneNodeFirst429: single.first429, splitFirst429: split.first429 });
      expect(single.first429, 'one node').to.equal(PER_ADDRESS + 1);
      expect(split.first429, 'split across A and B').to.equal(variant.shared ? PER_ADDRESS + 1 : 2 * PER_ADDRESS + 1);
    });

    it(`role changes made on A reach B within ${REACH_MS} ms (permission of a role, role of a user)`, async () => {
      const findInstitute = await firstId(a, '/api/permission?filters[action][$eq]=institute.find');
      const made = await send(a.url, { kind: 'setup', method: 'POST', path: '/api/role', body: { name: 'reader', description: 'reads institutes', permissions: [findInstitute] } });
      expect(made.status, JSON.stringify(made.body)).to.equal(200);
      const roleId = (made.body as { data: { id: number } }).data.id;
      const user = await createUserOver(a, 'role-watcher', [roleId]);
      const onB = async (): Promise<number> => (await call(b.url, 'GET', '/api/institute?limit=1', { token: user.accessToken })).status;
      expect(await onB(), 'allowed on B before any change').to.equal(200);

      const revokeMs: (number | null)[] = [];
      const grantMs: (number | null)[] = [];
      const patch = async (path: string, body: unknown): Promise<void> => {
        const r = await send(a.url, { kind: 'change', method: 'PATCH', path, body });
        expect(r.status, `${path}: ${JSON.stringify(r.body)}`).to.equal(200);
      };
      for (let round = 0; round < ROUNDS; round++) {
        // a cached "allowed" on B first, so the change has to displace it
        expect(await onB()).to.equal(200);
        await patch(`/api/role/${roleId}`, { permissions: [] });
        revokeMs.push(await msUntil(onB, 403, 3000));
        await patch(`/api/role/${roleId}`, { permissions: [findInstitute] });
        grantMs.push(await msUntil(onB, 200, 3000));
      }
      const userRevokeMs: (number | null)[] = [];
      const userGrantMs: (number | null)[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        expect(await onB()).to.equal(200);
        await patch(`/api/user/${user.id}`, { roles: [] });
        userRevokeMs.push(await msUntil(onB, 403, 3000));
        await patch(`/api/user/${user.id}`, { roles: [roleId] });
        userGrantMs.push(await msUntil(onB, 200, 3000));
      }
      figures(`role changes A → B, ${variant.name}`, { boundMs: REACH_MS, permissionRemovedMs: revokeMs, permissionGrantedMs: grantMs, roleRemovedFromUserMs: userRevokeMs, roleGivenBackMs: userGrantMs });
      for (const ms of [...revokeMs, ...grantMs, ...userRevokeMs, ...userGrantMs]) {
        expect(ms, 'reached B').to.not.equal(null);
        expect(ms as number).to.be.below(REACH_MS);
      }
    });
  });
}
