/**
 * `npm run bench [-- --rows N --db sqlite|postgres|mysql --duration S --connections C --repeat N --only a,b --scale N --smoke]`
 * Seeds a fresh database, starts the service and the hand-written floor (bench/floor.ts) as child
 * processes on 127.0.0.1, drives both with autocannon and prints requests/s, p50, p99, errors, RSS and
 * the service/floor ratios. Bounded in time; loopback only.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Command } from 'commander';
import knex from 'knex';
import { findRootDir, loadConfig } from '../config';
import { connect } from '../database/connect';
import { migrateLatest } from '../database/migrate';
import { realtimeBench, type RealtimeBenchResult } from './realtime';
import { seed, seedMore } from './seed';
import { CONTAINSI_PATH, DEEP_PAGE_PATH, DEEP_PATH, GROUP_RECORDS_PATH, LIST_PATH, M2M_PATH, OUTBOX_HEADER, RELATION_PATH, SORT_PATH } from './shapes';

/** The list shapes measured against a floor written for each (bench/shapes.ts); `identity`: needs the identity plugin's models. */
const LIST_SHAPES: readonly { readonly name: string; readonly path: string; readonly identity?: boolean; readonly connections?: number }[] = [
  { name: 'list', path: LIST_PATH },
  { name: 'sortNoIndex', path: SORT_PATH },
  { name: 'relFilter', path: RELATION_PATH },
  { name: 'containsi', path: CONTAINSI_PATH },
  { name: 'populate2', path: DEEP_PATH },
  { name: 'manyToMany', path: M2M_PATH, identity: true },
  { name: 'page1000', path: DEEP_PAGE_PATH },
  // ~35 ms of SQL each on SQLite's one connection: at 50 connections a request waits ~2 s, most answers of a
  // short run would come after its end (and their CPU counted against the few that came in time)
  { name: 'groupRecords', path: GROUP_RECORDS_PATH, connections: 5 },
];

interface Options {
  rows: number;
  db: 'sqlite' | 'postgres' | 'mysql';
  duration: number;
  warmup: number;
  connections: number;
  smoke: boolean;
  repeat: number;
  only?: string;
  out?: string;
  profile?: string;
  scale?: number;
}

interface Scenario {
  readonly name: string;
  readonly floor: boolean;
  /** Connections for this scenario (default --connections): 1 measures one client's latency. */
  readonly connections?: number;
  /** Reads the identity plugin's models (skipped without it). */
  readonly identity?: boolean;
  /** Runs with one enabled webhook on fee-type creates (issue 15), delivered to a receiver in this process. */
  readonly webhook?: boolean;
  /** Measured on a second service process with CACHE=memory; `of`: the uncached scenario it is compared with. */
  readonly cached?: { readonly of: string };
  readonly request: (ctx: { rows: number; token: string | null; seq: () => number }) => autocannon.Request;
}

const ROOT = findRootDir(__dirname);
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
const SECRET = 'bench-secret-bench-secret-bench-secret-0123456789';

const GROUPED_PATH = '/api/fee-type?groupBy[0]=dueDate:month&aggregates[0]=latePaymentFees:sum&limit=50';

const auth = (token: string | null): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});
const json = (token: string | null): Record<string, string> => ({ 'content-type': 'application/json', ...auth(token) });
const randomId = (rows: number): number => 1 + Math.floor(Math.random() * rows);

/** A create of a new fee type (a unique name per request). */
const createFeeType = (headers: Record<string, string>, seq: () => number): autocannon.Request => ({
  method: 'POST',
  path: '/api/fee-type',
  headers,
  setupRequest: (r: autocannon.Request) => ({ ...r, body: JSON.stringify({ feeType: `bench ${process.pid} ${seq()}`, instituteId: 1 + (seq() % 100), latePaymentFeesType: 'fixed', latePaymentFees: 5, dueDate: '2026-01-15' }) }),
});

/** The seeded tables (bench/seed.ts): their statistics are refreshed after seeding. */
const BENCH_TABLES = ['institute', 'fee_type'];

const SCENARIOS: readonly Scenario[] = [
  ...LIST_SHAPES.map((l): Scenario => ({ name: l.name, floor: true, identity: l.identity, connections: l.connections, request: ({ token }) => ({ method: 'GET', path: l.path, headers: auth(token) }) })),
  {
    name: 'findOne',
    floor: true,
    request: ({ rows, token }) => ({ method: 'GET', path: '/api/fee-type/1', headers: auth(token), setupRequest: (r: autocannon.Request) => ({ ...r, path: `/api/fee-type/${randomId(rows)}` }) }),
  },
  { name: 'create', floor: true, request: ({ token, seq }) => createFeeType(json(token), seq) },
  {
    // the same creates against a floor that writes each in a transaction with its event's outbox row, as
    // the service must (issue 15): the service's own cost, apart from the work the outbox adds
    name: 'createOutbox',
    floor: true,
    request: ({ token, seq }) => createFeeType({ ...json(token), [OUTBOX_HEADER]: '1' }, seq),
  },
  {
    // the same creates with one webhook subscribed to them: compare with `create` (issue 15: ≥ 0.85)
    name: 'createWebhook',
    floor: false,
    identity: true,
    webhook: true,
    request: ({ token, seq }) => createFeeType(json(token), seq),
  },
  {
    name: 'patch',
    floor: false,
    request: ({ rows, token }) => ({
      method: 'PATCH',
      path: '/api/fee-type/1',
      headers: json(token),
      setupRequest: (r: autocannon.Request) => ({ ...r, path: `/api/fee-type/${randomId(rows)}`, body: JSON.stringify({ latePaymentFees: Math.round(Math.random() * 1000) / 10 }) }),
    }),
  },
  // The response cache (issue 17): the same requests on a service with CACHE=memory (all hits after the first).
  { name: 'listCached', floor: false, cached: { of: 'list' }, request: ({ token }) => ({ method: 'GET', path: LIST_PATH, headers: auth(token) }) },
  { name: 'sortCached', floor: false, cached: { of: 'sortNoIndex' }, request: ({ token }) => ({ method: 'GET', path: SORT_PATH, headers: auth(token) }) },
  { name: 'listIndexed', floor: false, request: ({ token }) => ({ method: 'GET', path: '/api/fee-type?filters[dueDate][$eq]=2025-05-01&limit=10', headers: auth(token) }) },
  { name: 'grouped', floor: false, request: ({ token }) => ({ method: 'GET', path: GROUPED_PATH, headers: auth(token) }) },
  { name: 'grouped1', floor: false, connections: 1, request: ({ token }) => ({ method: 'GET', path: GROUPED_PATH, headers: auth(token) }) },
  {
    name: 'authenticate',
    floor: false,
    request: () => ({ method: 'POST', path: '/api/iam/authenticate', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bench@example.com', username: '', password: 'bench-password-1' }) }),
  },
];

interface Measured {
  readonly scenario: string;
  readonly connections: number;
  readonly target: 'service' | 'floor' | 'cached';
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
  readonly non2xx: number;
  readonly rssMb: number;
  /**
   * The process's own memory (RssAnon: heap, stacks, buffers): RSS less the mapped files (the node
   * binary and libraries, ~50 MB, shared by every node process on the machine).
   */
  readonly ownMb: number;
  /** CPU time (user + system) the measured process spent per answered request, in ms: steady under machine noise. */
  readonly cpuMsPerReq: number;
  /** Answers by HTTP status (the JSON output carries it; non2xx says how many were not 2xx). */
  readonly statuses: Record<string, number>;
}

/** User + system CPU time of a process so far, in ms (Linux /proc; NaN elsewhere). */
function cpuMs(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}

/** A memory figure of /proc/<pid>/status (VmRSS, RssAnon, …) in MB. */
function statusMb(pid: number | undefined, field: 'VmRSS' | 'RssAnon'): number {
  if (!pid) return NaN;
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

async function waitFor(url: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer within ${ms} ms`);
}

function run(url: string, req: autocannon.Request, connections: number, duration: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration, requests: [req] }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

async function measure(target: Measured['target'], base: string, s: Scenario, ctx: Parameters<Scenario['request']>[0], o: Options, pid: number | undefined): Promise<Measured> {
  const connections = s.connections ?? o.connections;
  if (o.warmup > 0) await run(base, s.request(ctx), connections, o.warmup);
  const cpuBefore = cpuMs(pid);
  const r = await run(base, s.request(ctx), connections, o.duration);
  const cpuMsPerReq = Math.round(((cpuMs(pid) - cpuBefore) / Math.max(1, r.requests.total)) * 1000) / 1000;
  return { scenario: s.name, connections, target, rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx, rssMb: statusMb(pid, 'VmRSS'), ownMb: statusMb(pid, 'RssAnon'), cpuMsPerReq,
    statuses: Object.fromEntries(Object.entries((r.statusCodeStats ?? {}) as Record<string, { count?: number }>).map(([code, v]) => [code, v.count ?? 0])) };
}

/** Waits (at most 15 s) until the processes use under a tenth of a core over 250 ms. */
async function settle(pids: readonly (number | undefined)[]): Promise<void> {
  const until = Date.now() + 15_000;
  while (Date.now() < until) {
    const before = pids.map(cpuMs);
    await new Promise((r) => setTimeout(r, 250));
    const busy = pids.map((p, i) => cpuMs(p) - before[i]).reduce((a, b) => a + b, 0);
    if (!(busy > 25)) return;
  }
}

function start(script: string, env: NodeJS.ProcessEnv, nodeArgs: readonly string[] = []): ChildProcess {
  const child = spawn(process.execPath, [...nodeArgs, join(ROOT, 'dist', script)], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  child.on('exit', (code, signal) => {
    if (code !== 0 && signal !== 'SIGTERM') process.stderr.write(`${script} exited (${code ?? signal})\n`);
  });
  return child;
}

async function main(): Promise<void> {
  const o = new Command()
    .option('--rows <n>', 'fee types to seed', (v) => Number(v), 10_000)
    .option('--db <db>', 'sqlite, postgres or mysql (MariaDB at TEST_MYSQL_URL)', 'sqlite')
    .option('--duration <s>', 'seconds per measurement', (v) => Number(v), 10)
    .option('--warmup <s>', 'warm-up seconds per measurement', (v) => Number(v), 2)
    .option('--connections <n>', 'concurrent connections', (v) => Number(v), 50)
    .option('--only <names>', 'comma-separated scenarios')
    .option('--out <file>', 'write the figures as JSON')
    .option('--profile <dir>', 'write CPU profiles of the service and the floor (node --cpu-prof) into this folder')
    .option('--repeat <n>', 'measure each scenario n times (service and floor in turn) and report the medians', (v) => Number(v), 1)
    .option('--scale <n>', 'then seed up to n fee types (e.g. 1000000) on the same database and measure listIndexed and findOne again (p50 ratio n / --rows)', (v) => Number(v))
    .option('--smoke', 'a short run that only proves the benchmark works', false)
    .parse(process.argv)
    .opts<Options>();
  if (o.smoke) Object.assign(o, { rows: Math.min(o.rows, 1000), duration: 1, warmup: 0, connections: 10 });
  if (o.db !== 'sqlite' && o.db !== 'postgres' && o.db !== 'mysql') throw new Error('--db must be sqlite, postgres or mysql');

  const work = mkdtempSync(join(tmpdir(), 'ris-bench-'));
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const pgUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const mysqlUrl = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/mysql';
  const mysqlBench = new URL(mysqlUrl);
  mysqlBench.pathname = `/${schema}`;
  const dbEnv: Record<string, string> =
    o.db === 'sqlite' ? { DATABASE_URL: `sqlite:${join(work, 'bench.db')}` } : o.db === 'mysql' ? { DATABASE_URL: mysqlBench.toString() } : { DATABASE_URL: pgUrl, DATABASE_SCHEMA: schema };
  const env: NodeJS.ProcessEnv = { ...process.env, ...dbEnv, NODE_ENV: 'production', IAM_JWT_SECRET: SECRET, AUTO_MIGRATE: 'false', DATA_DIR: join(work, 'data'), LOG_LEVEL: process.env.LOG_LEVEL ?? 'info', API_MAX_LIMIT: '100',
    // the authenticate scenario measures sign-in throughput from one address: the identity rate limits would turn it into 429s
    IAM_RATE_LIMIT_PER_ACCOUNT: '1000000000', IAM_RATE_LIMIT_PER_ADDRESS: '1000000000',
    // all connections carry one token, so they are one caller of the caller gate: a shape costing ~20 ms
    // (groupRecords) would make its 44 waiting requests pass the 1 s turn wait and answer 503
    CALLER_QUEUE_TIMEOUT: '30s',
    // the createWebhook scenario's receiver listens on 127.0.0.1 (the SSRF guard refuses it otherwise);
    // the realtime scenario opens 50 streams with the one bench token
    WEBHOOK_ALLOW_HOSTS: '127.0.0.1', REALTIME_MAX_CONNECTIONS: '100' };
  if (o.db === 'postgres') {
    const admin = knex({ client: 'pg', connection: pgUrl });
    await admin.raw('CREATE SCHEMA ??', [schema]);
    await admin.destroy();
  }
  if (o.db === 'mysql') {
    // a database of its own (the service creates its tables utf8mb4 / binary collation itself)
    const admin = knex({ client: 'mysql2', connection: mysqlUrl });
    await admin.raw('CREATE DATABASE ?? CHARACTER SET utf8mb4', [schema]);
    await admin.destroy();
  }
  const children: ChildProcess[] = [];
  try {
    const config = loadConfig(env, ROOT);
    const { db, dialect } = connect(config.database);
    await migrateLatest(db, config.migrationsDir);
    const t0 = Date.now();
    await seed(db, o.rows, o.smoke);
    await dialect.analyze(db, BENCH_TABLES);
    process.stdout.write(`seeded ${o.rows} fee types in ${((Date.now() - t0) / 1000).toFixed(1)} s on ${o.db}\n`);

    // An admin account, when the identity plugin offers the CLI command.
    const cli = spawnSync(process.execPath, [join(ROOT, 'dist', 'admin-cli', 'index.js'), 'user:create', '--username', 'bench', '--email', 'bench@example.com', '--password', 'bench-password-1', '--roles', 'admin'], { env, encoding: 'utf8' });
    const servicePort = 14_000 + Math.floor(Math.random() * 1000);
    const floorPort = servicePort + 1000;
    const profile = o.profile ? ['--cpu-prof', `--cpu-prof-dir=${o.profile}`] : [];
    const wanted = o.only ? new Set(o.only.split(',')) : null;
    const service = start('core/main.js', { ...env, PORT: String(servicePort), HOST: '127.0.0.1', CACHE: 'off' }, profile);
    const floor = start('bench/floor.js', { ...env, PORT: String(floorPort) }, profile);
    children.push(service, floor);
    const serviceUrl = `http://127.0.0.1:${servicePort}`;
    const floorUrl = `http://127.0.0.1:${floorPort}`;
    // A second service with the response cache, only when a cached scenario is measured.
    const cachedPort = servicePort + 2000;
    const cachedUrl = `http://127.0.0.1:${cachedPort}`;
    // The cached service shares the database and only reads: it sends no webhooks (on SQLite its delivery
    // claims competed for the one writer lock with the measured service's creates, which then failed).
    const cachedService = SCENARIOS.some((s) => s.cached && (!wanted || wanted.has(s.name))) ? start('core/main.js', { ...env, PORT: String(cachedPort), HOST: '127.0.0.1', CACHE: 'memory', WEBHOOK_DELIVERY: 'false' }, profile) : null;
    if (cachedService) children.push(cachedService);
    await waitFor(`${serviceUrl}/health`, 20_000);
    await waitFor(`${floorUrl}/api/fee-type/1`, 20_000);
    if (cachedService) await waitFor(`${cachedUrl}/health`, 20_000);

    let token: string | null = null;
    if (cli.status === 0) {
      const res = await fetch(`${serviceUrl}/api/iam/authenticate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bench@example.com', username: '', password: 'bench-password-1' }) });
      const body = (await res.json()) as { data?: { accessToken?: string } };
      token = body.data?.accessToken ?? null;
    }
    const hasIdentity = token !== null;
    await sameAnswers(serviceUrl, floorUrl, token, hasIdentity);
    let n = 0;
    const pids = [service.pid, floor.pid, cachedService?.pid];
    const measureAll = async (rows: number, names: Set<string> | null): Promise<Measured[]> => {
      const ctx = { rows, token, seq: () => ++n };
      const runs: Measured[] = [];
      for (let round = 0; round < Math.max(1, o.repeat); round++) {
        for (const s of SCENARIOS) {
          if (names && !names.has(s.name)) continue;
          if ((s.name === 'authenticate' || s.identity) && !hasIdentity) continue;
          // Every scenario sees the seeded rows only: what a create run added goes before the next run.
          // and work a run left queued (sign-ins hash on for seconds after their clients stop) ends first.
          const seeded = async (m: Measured): Promise<Measured> => {
            await db('fee_type').where('id', '>', rows).del();
            await settle(pids);
            return m;
          };
          if (s.cached) {
            if (cachedService) runs.push(await seeded(await measure('cached', cachedUrl, s, ctx, o, cachedService.pid)));
            continue;
          }
          const hook = s.webhook ? await addWebhook(serviceUrl, token) : null;
          runs.push(await seeded(await measure('service', serviceUrl, s, ctx, o, service.pid)));
          if (hook) await hook.finish();
          if (s.floor) runs.push(await seeded(await measure('floor', floorUrl, s, ctx, o, floor.pid)));
        }
      }
      return runs;
    };
    const runs = await measureAll(o.rows, wanted);
    const results = medians(runs);
    report(results, ratios(runs), o, o.rows, config.sqliteReaders);
    reportCached(results);
    let scaled: { rows: number; results: Measured[]; ratios: ReturnType<typeof ratios> } | null = null;
    if (o.scale && o.scale > o.rows) {
      const small = ['listIndexed', 'findOne'].every((x) => runs.some((r) => r.scenario === x)) ? runs : await measureAll(o.rows, new Set(['listIndexed', 'findOne']));
      const t1 = Date.now();
      await seedMore(db, o.rows, o.scale, o.smoke);
      await dialect.analyze(db, BENCH_TABLES);
      process.stdout.write(`seeded up to ${o.scale} fee types in ${((Date.now() - t1) / 1000).toFixed(1)} s\n`);
      const big = await measureAll(o.scale, new Set(['listIndexed', 'findOne']));
      scaled = { rows: o.scale, results: medians(big), ratios: ratios(big) };
      report(scaled.results, scaled.ratios, o, o.scale, config.sqliteReaders);
      for (const name of ['listIndexed', 'findOne']) {
        const a = medians(small).find((r) => r.scenario === name && r.target === 'service');
        const b = scaled.results.find((r) => r.scenario === name && r.target === 'service');
        if (a && b) process.stdout.write(`scale ${name}: p50 ${b.p50} ms at ${o.scale} vs ${a.p50} ms at ${o.rows} (${(b.p50 / Math.max(a.p50, 0.5)).toFixed(2)}×), req/s ${b.rps} vs ${a.rps}\n`);
      }
    }
    // Realtime (issue 15): creates with 50 SSE listeners vs none, and event-to-receiver latency.
    let realtime: RealtimeBenchResult | null = null;
    if ((!wanted || wanted.has('realtime')) && token !== null) {
      const ctx = { rows: o.rows, token, seq: () => ++n };
      const create = SCENARIOS.find((x) => x.name === 'create') as Scenario;
      realtime = await realtimeBench({
        url: serviceUrl,
        token,
        listeners: 50,
        rounds: Math.max(1, o.repeat),
        writes: async () => {
          const m = await measure('service', serviceUrl, { ...create, name: 'realtime' }, ctx, o, service.pid);
          if (m.errors > 0 || m.non2xx > 0) process.stderr.write(`realtime: ${m.errors} errors, ${m.non2xx} non-2xx\n`);
          return { rps: m.rps, cpuMsPerReq: m.cpuMsPerReq };
        },
        between: async () => {
          await db('fee_type').where('id', '>', o.rows).del();
          await settle([service.pid]);
        },
      });
    }
    if (realtime) {
      const r = realtime;
      process.stdout.write(`realtime: creates with ${r.listeners} SSE listeners ${r.ratio.toFixed(2)} of none (req/s with: ${r.rpsWith.join(', ')}; none: ${r.rpsWithout.join(', ')}; service CPU ms per create ${r.cpuMsWith} vs ${r.cpuMsWithout}); event-to-receiver latency over ${r.received} receipts p50 ${r.latencyP50} ms, p99 ${r.latencyP99} ms, max ${r.latencyMax} ms\n`);
    }
    if (o.out) writeFileSync(o.out, JSON.stringify({ options: o, results, ratios: ratios(runs), runs, scaled, realtime }, null, 2));
    const failed = runs.filter((r) => r.target === 'service' && (r.errors > 0 || r.non2xx > 0));
    if (failed.length > 0) {
      process.stderr.write(`errors in: ${failed.map((f) => `${f.scenario} (${f.errors} errors, ${f.non2xx} non-2xx)`).join(', ')}\n`);
      process.exitCode = 1;
    }
    await db.destroy();
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    if (o.db === 'postgres') {
      const admin = knex({ client: 'pg', connection: pgUrl });
      await admin.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]);
      await admin.destroy();
    }
    if (o.db === 'mysql') {
      const admin = knex({ client: 'mysql2', connection: mysqlUrl });
      await admin.raw('DROP DATABASE IF EXISTS ??', [schema]);
      await admin.destroy();
    }
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * One webhook on fee-type creates, delivered to a receiver here; `finish` disables it once deliveries
 * stop arriving and prints the event-to-receiver latency (commit time in the payload → arrival).
 */
async function addWebhook(serviceUrl: string, token: string | null): Promise<{ finish(): Promise<void> }> {
  const latencies: number[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      try {
        latencies.push(Date.now() - Date.parse((JSON.parse(body) as { timestamp: string }).timestamp));
      } catch {
        /* not ours */
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const created = await fetch(`${serviceUrl}/api/webhook`, { method: 'POST', headers: json(token), body: JSON.stringify({ name: `bench-${randomBytes(3).toString('hex')}`, url, events: ['record.create'], model: 'fee-type' }) });
  if (created.status !== 200) throw new Error(`creating the bench webhook answered ${created.status}: ${await created.text()}`);
  const id = ((await created.json()) as { data: { id: number } }).data.id;
  return {
    async finish() {
      // deliveries drain after the run: wait until none arrives for 2 s (at most 60 s)
      let seen = -1;
      for (let waited = 0; seen !== latencies.length && waited < 60_000; waited += 2000) {
        seen = latencies.length;
        await new Promise((r) => setTimeout(r, 2000));
      }
      await fetch(`${serviceUrl}/api/webhook/${id}`, { method: 'PATCH', headers: json(token), body: JSON.stringify({ enabled: false }) });
      server.closeAllConnections();
      server.close();
      const sorted = [...latencies].sort((a, b) => a - b);
      const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
      process.stdout.write(`webhook: ${sorted.length} deliveries; event-to-receiver latency p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${sorted.at(-1) ?? NaN} ms\n`);
    },
  };
}

/** The floor is only a floor if it answers the same JSON: compare list and findOne bodies before measuring. */
async function sameAnswers(serviceUrl: string, floorUrl: string, token: string | null, hasIdentity: boolean): Promise<void> {
  const sizes: string[] = [];
  for (const path of [...LIST_SHAPES.filter((l) => hasIdentity || !l.identity).map((l) => l.path), '/api/fee-type/7']) {
    const [a, b] = await Promise.all([fetch(serviceUrl + path, { headers: auth(token) }).then((r) => r.text()), fetch(floorUrl + path).then((r) => r.text())]);
    if (a !== b) {
      const first = [...a].findIndex((c, i) => c !== b[i]);
      const at = first < 0 ? a.length : first;
      throw new Error(`the floor answers ${path} differently from the service (from character ${at}):\nservice: ${a.slice(Math.max(0, at - 200), at + 300)}\nfloor:   ${b.slice(Math.max(0, at - 200), at + 300)}`);
    }
    if (!a.startsWith('{"')) throw new Error(`${path}: not a JSON object: ${a.slice(0, 200)}`);
    sizes.push(`${Buffer.byteLength(a)} B`);
  }
  process.stdout.write(`service and floor answer byte-identical JSON (${sizes.join(', ')})\n`);
}

const median = (xs: readonly number[]): number => {
  const v = [...xs].sort((x, y) => x - y);
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};

/** One row per scenario and target: the median of each figure over the rounds (errors summed). */
function medians(runs: readonly Measured[]): Measured[] {
  const groups = new Map<string, Measured[]>();
  for (const r of runs) groups.set(`${r.scenario}\0${r.target}`, [...(groups.get(`${r.scenario}\0${r.target}`) ?? []), r]);
  return [...groups.values()].map((g) => ({
    ...g[0],
    rps: Math.round(median(g.map((r) => r.rps))),
    p50: median(g.map((r) => r.p50)),
    p99: median(g.map((r) => r.p99)),
    errors: g.reduce((n, r) => n + r.errors, 0),
    non2xx: g.reduce((n, r) => n + r.non2xx, 0),
    rssMb: Math.max(...g.map((r) => r.rssMb)),
    ownMb: Math.max(...g.map((r) => r.ownMb)),
    cpuMsPerReq: Math.round(median(g.map((r) => r.cpuMsPerReq)) * 1000) / 1000,
  }));
}

/** service/floor requests per second, per round (each service run against the floor run right after it), and their median. */
function ratios(runs: readonly Measured[]): Record<string, { median: number; rounds: number[] }> {
  const out: Record<string, { median: number; rounds: number[] }> = {};
  runs.forEach((r, i) => {
    const fl = runs[i + 1];
    if (r.target !== 'service' || !fl || fl.target !== 'floor' || fl.scenario !== r.scenario || fl.rps <= 0) return;
    const entry = (out[r.scenario] ??= { median: 0, rounds: [] });
    entry.rounds.push(Math.round((r.rps / fl.rps) * 100) / 100);
    entry.median = median(entry.rounds);
  });
  return out;
}

/** Cached scenario vs the same request on the service without the cache (issue 17 target: ≥ 10×). */
function reportCached(results: readonly Measured[]): void {
  for (const s of SCENARIOS) {
    if (!s.cached) continue;
    const c = results.find((r) => r.scenario === s.name);
    const u = results.find((r) => r.scenario === s.cached!.of && r.target === 'service');
    if (c && u && u.rps > 0) process.stdout.write(`cache ${s.name}: ${(c.rps / u.rps).toFixed(1)}× the uncached ${u.scenario} (${c.rps} vs ${u.rps} req/s; CPU ${c.cpuMsPerReq} vs ${u.cpuMsPerReq} ms/req)\n`);
  }
}

function report(results: readonly Measured[], ratio: ReturnType<typeof ratios>, o: Options, rows: number, sqliteReaders: number): void {
  const pad = (v: unknown, w: number): string => String(v).padStart(w);
  const rounds = Math.max(1, o.repeat);
  process.stdout.write(`\n${o.db}, ${rows} rows, ${o.connections} connections, ${o.duration} s per run${rounds > 1 ? `, medians of ${rounds} rounds (RSS and own memory: the largest)` : ''}\n`);
  // The floor keeps knex's one sqlite3 connection; SQLITE_READERS=0 compares the service's own code on the same one.
  if (o.db === 'sqlite') process.stdout.write(`the service reads on SQLITE_READERS=${sqliteReaders} read-only connections beside its writer; the floor on knex's one connection\n`);
  process.stdout.write(`${'scenario'.padEnd(14)}${'target'.padEnd(9)}${pad('conns', 6)}${pad('req/s', 8)}${pad('p50 ms', 8)}${pad('p99 ms', 8)}${pad('errors', 8)}${pad('non2xx', 8)}${pad('RSS MB', 8)}${pad('own MB', 8)}${pad('CPU ms/req', 12)}\n`);
  for (const r of results) {
    process.stdout.write(`${r.scenario.padEnd(14)}${r.target.padEnd(9)}${pad(r.connections, 6)}${pad(r.rps, 8)}${pad(r.p50, 8)}${pad(r.p99, 8)}${pad(r.errors, 8)}${pad(r.non2xx, 8)}${pad(r.rssMb, 8)}${pad(r.ownMb, 8)}${pad(r.cpuMsPerReq, 12)}\n`);
  }
  for (const [s, r] of Object.entries(ratio)) process.stdout.write(`ratio ${s}: ${r.median.toFixed(2)} of the floor${r.rounds.length > 1 ? ` (rounds: ${r.rounds.join(', ')})` : ''}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
