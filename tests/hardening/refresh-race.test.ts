/**
 * Issue 8 §4, CONTRACT "refresh tokens rotate": PARALLEL refreshes with one refresh token, as two tabs
 * (or twenty) do at once. Every one answers 200 with a pair that works, the session stays alive; a
 * replay of the spent token after IAM_REFRESH_REUSE_INTERVAL revokes the session, and every access and
 * refresh token of it is refused from then on. On one node per database, and on two nodes sharing
 * PostgreSQL and Redis with the requests split between them. The interval is shortened to
 * REUSE_SECONDS for the test; rate limits are lifted (the refresh bucket counts per address).
 */
import { expect } from 'chai';
import { DIALECTS } from '../helpers/dialects';
import { freshDatabase, type FreshDatabase } from './helpers/fresh-service';
import { figures, percentile, tally } from './helpers/load';
import { call, createUserOver, firstId, msUntil, type Nodes, REDIS_URL, startNodes } from './helpers/nodes';
import { type ServerProcess, startServerProcess } from './helpers/server-process';

const PARALLEL = 20;
const REUSE_SECONDS = 3;
const ENV = { IAM_REFRESH_REUSE_INTERVAL: `${REUSE_SECONDS}s`, IAM_RATE_LIMIT_PER_ADDRESS: '100000', IAM_RATE_LIMIT_PER_ACCOUNT: '100000' };
/** Revocation reaches every node within a second (CONTRACT: logout; issue 8 §6). */
const REVOKED_WITHIN_MS = 1000;

interface Pair {
  readonly accessToken: string;
  readonly refreshToken: string;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const pairOf = (body: unknown): Pair => body as Pair;

/** The whole scenario against `nodes` (request i goes to nodes[i % n]); asserts and prints its figures. */
async function race(label: string, nodes: readonly ServerProcess[], username: string): Promise<void> {
  const at = (i: number): string => nodes[i % nodes.length].url;
  const authenticated = await firstId(nodes[0], '/api/role?filters[name][$eq]=authenticated');
  const user = await createUserOver(nodes[0], username, [authenticated]);

  // 1. N parallel refreshes with the one token
  const t0 = performance.now();
  const answers = await Promise.all(Array.from({ length: PARALLEL }, (_, i) => call(at(i), 'POST', '/api/iam/refresh-tokens', { body: { refreshToken: user.refreshToken } })));
  const raceMs = performance.now() - t0;
  const pairs = answers.filter((r) => r.status === 200).map((r) => pairOf(r.body));

  // 2. every pair works: its access token on the other node, its refresh token once
  const meStatuses = await Promise.all(pairs.map((p, i) => call(at(i + 1), 'GET', '/api/iam/me', { token: p.accessToken }).then((r) => r.status)));
  const next = await Promise.all(pairs.map((p, i) => call(at(i + 1), 'POST', '/api/iam/refresh-tokens', { body: { refreshToken: p.refreshToken } })));
  const latest = next.filter((r) => r.status === 200).map((r) => pairOf(r.body));
  const aliveStatus = (await call(at(0), 'GET', '/api/iam/me', { token: latest[0]?.accessToken })).status;
  const withinInterval = performance.now() - t0 < REUSE_SECONDS * 1000;

  // 3. after the interval: a replay of the spent token revokes the session
  await sleep(Math.max(0, REUSE_SECONDS * 1000 + 300 - (performance.now() - t0)));
  const replay = await call(at(1), 'POST', '/api/iam/refresh-tokens', { body: { refreshToken: user.refreshToken } });
  const lastAccess = latest[latest.length - 1]?.accessToken;
  const revokedMs = await msUntil(async () => (await call(at(0), 'GET', '/api/iam/me', { token: lastAccess })).status, 401, 3000);
  const accessTokens = [user.accessToken, ...pairs.map((p) => p.accessToken), ...latest.map((p) => p.accessToken)];
  const refreshTokens = [...pairs.map((p) => p.refreshToken), ...latest.map((p) => p.refreshToken)];
  const accessAfter = await Promise.all(nodes.flatMap((n) => accessTokens.map((t) => call(n.url, 'GET', '/api/institute?limit=1', { token: t }).then((r) => r.status))));
  const refreshAfter = await Promise.all(refreshTokens.map((t, i) => call(at(i), 'POST', '/api/iam/refresh-tokens', { body: { refreshToken: t } }).then((r) => r.status)));

  figures(`parallel refresh, ${label}`, {
    parallel: PARALLEL,
    nodes: nodes.length,
    reuseIntervalS: REUSE_SECONDS,
    byStatus: tally(answers, (r) => String(r.status)),
    raceMsTotal: Math.round(raceMs),
    msP50: Math.round(percentile(answers.map((r) => r.ms), 50)),
    msMax: Math.round(Math.max(...answers.map((r) => r.ms))),
    distinctRefreshTokens: new Set(pairs.map((p) => p.refreshToken)).size,
    meWithNewAccess: tally(meStatuses, String),
    refreshWithNewRefresh: tally(next, (r) => String(r.status)),
    sessionAliveAfter: aliveStatus,
    replayAfterInterval: replay.status,
    revokedSeenMs: revokedMs,
    accessTokensAfterReplay: tally(accessAfter, String),
    refreshTokensAfterReplay: tally(refreshAfter, String),
  });

  expect(answers.map((r) => r.status), 'every parallel refresh').to.deep.equal(Array(PARALLEL).fill(200));
  expect(withinInterval, 'the race and its checks fit in the reuse interval').to.equal(true);
  expect(new Set(pairs.map((p) => p.refreshToken)).size, 'a fresh refresh token each').to.equal(PARALLEL);
  expect(meStatuses, 'each new access token works').to.deep.equal(Array(PARALLEL).fill(200));
  expect(next.map((r) => r.status), 'each new refresh token works').to.deep.equal(Array(PARALLEL).fill(200));
  expect(aliveStatus, 'the session stays alive').to.equal(200);
  expect(replay.status, 'replay after the interval').to.equal(401);
  expect(revokedMs, 'revocation seen').to.not.equal(null);
  expect(revokedMs as number).to.be.below(REVOKED_WITHIN_MS);
  expect(accessAfter.every((s) => s === 401), 'every access token of the session refused').to.equal(true);
  expect(refreshAfter.every((s) => s === 401), 'every refresh token of the session refused').to.equal(true);
}

for (const dialect of DIALECTS) {
  describe(`parallel refresh with one refresh token, one node [${dialect}]`, function () {
    this.timeout(60_000);
    let fresh: FreshDatabase;
    let server: ServerProcess;
    before(async () => {
      fresh = await freshDatabase(dialect);
      server = await startServerProcess({ ...fresh.env, LOG_LEVEL: 'warn', ...ENV });
    });
    after(async () => {
      server?.kill('SIGKILL');
      await server?.exited;
      await fresh?.drop();
    });

    it(`${PARALLEL} parallel refreshes all get a working pair; a replay after ${REUSE_SECONDS} s revokes the session`, async () => {
      await race(`one node [${dialect}]`, [server], 'racer');
    });
  });
}

describe('parallel refresh with one refresh token, two nodes [postgres + Redis]', function () {
  this.timeout(90_000);
  let cluster: Nodes;
  before(async function () {
    this.timeout(60_000);
    cluster = await startNodes(2, { REDIS_URL, ...ENV });
  });
  after(async () => cluster?.close());

  it(`${PARALLEL} parallel refreshes split A/B all get a working pair; a replay after ${REUSE_SECONDS} s revokes it on both`, async () => {
    await race('two nodes [postgres + Redis]', cluster.nodes, 'split-racer');
  });
});
