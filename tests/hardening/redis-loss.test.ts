/**
 * Issue 8 §6, what Redis may not break: two nodes on one PostgreSQL share a throwaway Redis
 * (redis-server on its own port), which hangs (SIGSTOP), dies (SIGKILL) and comes back.
 * - While it hangs or is gone, sign-ins keep answering (200 / 401, never 500) within a second; rate
 *   limits still hold, counted on each node alone (as without REDIS_URL); a logout on A is refused on
 *   B within a second (the 0.5 s actor cache, without the bus). Each node logs the outage once.
 * - Once it is back, the nodes reconnect by themselves and count together again, and the revocation
 *   bus carries logouts again.
 */
import { expect } from 'chai';
import { figures } from './helpers/load';
import { attemptsUntil429, call, createUserOver, firstId, msUntil, type Nodes, signInOver, startNodes } from './helpers/nodes';
import type { ServerProcess } from './helpers/server-process';
import { createThrowawayRedis, redisToolsAvailable, type ThrowawayRedis } from './helpers/throwaway-redis';

const PER_ACCOUNT = 5;
const LIMITS = { TRUST_PROXY: 'true', IAM_RATE_LIMIT_PER_ACCOUNT: String(PER_ACCOUNT), IAM_RATE_LIMIT_PER_ADDRESS: '1000', IAM_RATE_LIMIT_WINDOW: '1m' };
const ANSWER_MS = 1000;
const REACH_MS = 1000;
/** Per node at least: the rate limiter's connection and the revocation bus's two (the event signal adds its own). */
const REDIS_CONNECTIONS_PER_NODE = 3;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
let scenario = 0;
const freshAddress = (): string => `203.0.113.${++scenario}`;

describe('several nodes: Redis hangs, dies and comes back [postgres + throwaway Redis]', function () {
  this.timeout(120_000);
  let redis: ThrowawayRedis;
  let cluster: Nodes;
  let a: ServerProcess;
  let b: ServerProcess;

  before(async function () {
    this.timeout(60_000);
    if (!redisToolsAvailable()) throw new Error('redis-server and redis-cli are needed for this scenario (Debian package redis-server)');
    redis = await createThrowawayRedis();
    // info: the "Redis is back" notices are logged at info
    cluster = await startNodes(2, { ...LIMITS, REDIS_URL: redis.url, LOG_LEVEL: 'info' });
    [a, b] = cluster.nodes;
  });
  after(async () => {
    await cluster?.close();
    await redis?.destroy();
  });

  it('sign-ins keep answering and stay limited per node without Redis; shared again once it is back', async () => {
    const authenticated = await firstId(a, '/api/role?filters[name][$eq]=authenticated');
    const splitFirst429 = async (name: string): Promise<number | null> => (await attemptsUntil429([a, b], () => ({ username: name, password: 'wrong-password' }), freshAddress(), 4 * PER_ACCOUNT)).first429;
    /** Correct sign-ins alternating A/B: statuses and the slowest. */
    const signIns = async (user: { username: string; password: string }, n: number): Promise<{ statuses: number[]; msMax: number }> => {
      const statuses: number[] = [];
      let msMax = 0;
      for (let i = 0; i < n; i++) {
        const r = await call((i % 2 ? b : a).url, 'POST', '/api/iam/authenticate', { body: { username: user.username, password: user.password }, headers: { 'x-forwarded-for': freshAddress() } });
        statuses.push(r.status);
        msMax = Math.max(msMax, r.ms);
      }
      return { statuses, msMax: Math.round(msMax) };
    };
    /** A fresh session signed in on A, logged out on A: ms until B refuses its access token. */
    const logoutReachesB = async (username: string): Promise<number | null> => {
      const u = await createUserOver(a, username, [authenticated]);
      const onB = async (): Promise<number> => (await call(b.url, 'GET', '/api/iam/me', { token: u.accessToken })).status;
      expect(await onB(), 'the session works on B first').to.equal(200);
      expect((await call(a.url, 'POST', '/api/iam/logout', { body: { refreshToken: u.refreshToken } })).status).to.equal(200);
      return msUntil(onB, 401, 3000);
    };
    // one account per phase: correct sign-ins count towards the per-account limit too
    const walkers = { hung: await createUserOver(a, 'walker-hung', [authenticated]), gone: await createUserOver(a, 'walker-gone', [authenticated]), back: await createUserOver(a, 'walker-back', [authenticated]) };

    // Redis up: shared counters
    const upFirst429 = await splitFirst429('victim-up');

    // Every connection the nodes hold while Redis is up (rate limits, revocations, the event signal):
    // each must come back by itself.
    const connectedBefore = redis.clients();
    expect(connectedBefore, 'connections of both nodes while Redis is up').to.be.at.least(2 * REDIS_CONNECTIONS_PER_NODE);

    // Redis hangs
    redis.freeze();
    const hungSignIns = await signIns(walkers.hung, 4);
    const hungFirst429 = await splitFirst429('victim-hung');
    const hungLogoutMs = await logoutReachesB('logout-hung');

    // Redis dies
    await redis.kill();
    const goneSignIns = await signIns(walkers.gone, 4);
    const goneFirst429 = await splitFirst429('victim-gone');
    const goneLogoutMs = await logoutReachesB('logout-gone');

    // Redis back on the same address: the nodes reconnect by themselves
    await redis.start();
    const t = Date.now();
    while (redis.clients() < connectedBefore && Date.now() - t < 15_000) await sleep(100);
    const reconnectedMs = Date.now() - t;
    const connections = redis.clients();
    await sleep(200);
    const backFirst429 = await splitFirst429('victim-back');
    const backLogoutMs = await logoutReachesB('logout-back');
    const backSignIn = await signInOver(b.url, walkers.back.username, walkers.back.password, { 'x-forwarded-for': freshAddress() });

    const logged = (n: ServerProcess, msg: string): number => n.logs.filter((l) => l.msg === msg).length;
    const outages = [a, b].map((n) => logged(n, 'rate limits: Redis unavailable, counting in this process until it is back'));
    const returns = [a, b].map((n) => logged(n, 'rate limits: Redis is back, counters shared again'));
    figures('Redis lost and back, two nodes', {
      limitPerAccount: PER_ACCOUNT,
      first429: { up: upFirst429, hung: hungFirst429, gone: goneFirst429, back: backFirst429 },
      signIns: { hung: hungSignIns, gone: goneSignIns },
      logoutRefusedOnBMs: { hung: hungLogoutMs, gone: goneLogoutMs, back: backLogoutMs },
      reconnectedMs,
      redisConnectionsAfter: connections,
      outageWarningsPerNode: outages,
      backNoticesPerNode: returns,
    });

    expect(upFirst429, 'Redis up: counted across both').to.equal(PER_ACCOUNT + 1);
    for (const [name, s] of [['hung', hungSignIns], ['gone', goneSignIns]] as const) {
      expect(s.statuses, `sign-ins while Redis is ${name}`).to.deep.equal(Array(4).fill(200));
      expect(s.msMax, `slowest sign-in while Redis is ${name}`).to.be.below(ANSWER_MS);
    }
    expect(hungFirst429, 'Redis hung: each node counts alone').to.equal(2 * PER_ACCOUNT + 1);
    expect(goneFirst429, 'Redis gone: each node counts alone').to.equal(2 * PER_ACCOUNT + 1);
    for (const ms of [hungLogoutMs, goneLogoutMs, backLogoutMs]) {
      expect(ms, 'logout on A refused on B').to.not.equal(null);
      expect(ms as number).to.be.below(REACH_MS);
    }
    expect(connections, 'both nodes reconnected (15 s at most)').to.be.at.least(connectedBefore);
    expect(backFirst429, 'Redis back: counted across both again').to.equal(PER_ACCOUNT + 1);
    expect(backSignIn.accessToken).to.be.a('string');
    expect(outages, 'one outage warning per node').to.deep.equal([1, 1]);
    expect(returns, 'one notice per node when it is back').to.deep.equal([1, 1]);
    for (const n of [a, b]) expect(n.stderr(), 'nothing on stderr (no unhandled ioredis errors)').to.equal('');
  });
});
