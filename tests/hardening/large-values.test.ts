/**
 * Answers made of large values stay within ANSWER_MAX_BYTES in memory too (README: Query limits). One
 * ordinary user, 100 tags of 1 MB notes, 10 articles each showing all 100 (the hostile review's data):
 * - /api/article?limit=10&populate[tags][limit]=100 (1 GB of JSON) was, on PostgreSQL, a 500
 *   `RangeError: Invalid string length` after 7.5 s at 1.6 GB of RSS, /health held 4 s; with limit=3
 *   a 413 after 1.7 s and +550 MB; on SQLite a 504 after 11 s;
 * - /api/tag?limit=100 a 413 after reading all 100 MB (+175 MB), six at once 1.1 GB.
 * Now each answers a JSON 413 naming ANSWER_MAX_BYTES after reading about that many bytes of rows.
 * Measured on a real server process: its resident memory (VmRSS, sampled every 10 ms) and the time
 * to the answer, and /health while they run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { DIALECTS } from '../helpers/dialects';
import { figures } from './helpers/load';
import { createUserOver, firstId } from './helpers/nodes';
import { freshDatabase, type FreshDatabase } from './helpers/fresh-service';
import { countedGet as get, type Got } from './helpers/one-user-load';
import { startServerProcess, type ServerProcess } from './helpers/server-process';
import { ROOT } from '../helpers/test-app';

const MODELS = join(ROOT, 'tests', 'fixtures', 'large-answers');
const TAGS = 100;
const NOTES_CHARS = 1_000_000;
const ARTICLES = 10;
const MiB = 1024 * 1024;
/** Bound on the growth of the server's resident memory while one answer is refused (old code: +550 MB to +1.6 GB). */
const ONE_MAX_MIB = 150;
/** …while six are refused at once (old code: +320 to +1150 MiB; now +100 to +150). */
const SIX_MAX_MIB = 400;
/** …and the process's resident memory at the peak (old code: 1.4–3.2 GiB after the first test; now 285–370 MiB). */
const SIX_PEAK_MIB = 700;
/** Bound on the time to the 413 (old code: 1.7–11 s, or a 500 / 504). */
const ANSWER_MS = 3000;

async function post(server: ServerProcess, path: string, body: unknown): Promise<{ data: { id: number } | { id: number }[] }> {
  const res = await fetch(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token ?? ''}` }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as { data: { id: number } };
}

/** The server's resident memory in MiB, sampled every 10 ms while `run` runs: before and at its peak. */
async function rssWhile<T>(server: ServerProcess, run: () => Promise<T>): Promise<{ result: T; before: number; peak: number }> {
  const rss = (): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
  const before = rss();
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, rss())), 10);
  try {
    return { result: await run(), before, peak };
  } finally {
    clearInterval(timer);
  }
}

function expectTooLarge(r: Got): void {
  expect(r.status, r.body.slice(0, 300)).to.equal(413);
  const error = (JSON.parse(r.body) as { error: { name: string; details: { setting: string } } }).error;
  expect(error.name).to.equal('AnswerTooLargeError');
  expect(error.details.setting).to.equal('ANSWER_MAX_BYTES');
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: answers of 1 MB text values are refused within ANSWER_MAX_BYTES of memory`, function () {
    this.timeout(300_000);
    let fresh: FreshDatabase;
    let server: ServerProcess;
    let reader: string;

    before(async () => {
      fresh = await freshDatabase(dialect);
      server = await startServerProcess({ ...fresh.env, LOG_LEVEL: 'warn', CONTENT_TYPES_DIR: MODELS, BODY_MAX_BYTES: String(2 * MiB) });
      const tags: number[] = [];
      for (let i = 0; i < TAGS; i++) tags.push(((await post(server, '/api/tag', { label: `t${i}`, notes: `${i} ${'n'.repeat(NOTES_CHARS)}` })).data as { id: number }).id);
      await post(server, '/api/article/bulk', Array.from({ length: ARTICLES }, (_, i) => ({ title: `a${i}`, tags })));
      const permissions: number[] = [];
      for (const action of ['tag.find', 'article.find']) permissions.push(await firstId(server, `/api/permission?filters[action][$eq]=${action}`));
      const role = ((await post(server, '/api/role', { name: 'reader', description: 'reads articles and tags', permissions })).data as { id: number }).id;
      reader = (await createUserOver(server, 'reader', [role])).accessToken;
      const allowed = await get(`${server.url}/api/tag?limit=1&fields[0]=label`, reader);
      expect(allowed.status, `an ordinary user reads tags: ${allowed.body}`).to.equal(200);
    });
    after(async () => {
      server?.kill('SIGKILL');
      await server?.exited;
      await fresh?.drop();
    });

    it('10 articles × 100 tags of 1 MB notes (1 GB of JSON), and 3 articles: a JSON 413 naming ANSWER_MAX_BYTES, quickly, within ANSWER_MAX_BYTES of memory; /health answers meanwhile', async () => {
      const out: Record<string, Record<string, unknown>> = {};
      for (const limit of [ARTICLES, 3]) {
        let healthMax = 0;
        let running = true;
        const health = (async () => {
          while (running) {
            const t0 = performance.now();
            const r = await fetch(`${server.url}/health`);
            expect(r.status).to.equal(200);
            await r.arrayBuffer();
            healthMax = Math.max(healthMax, performance.now() - t0);
            await new Promise((r) => setTimeout(r, 20));
          }
        })();
        const { result, before, peak } = await rssWhile(server, () => get(`${server.url}/api/article?limit=${limit}&populate[tags][limit]=100`, reader));
        running = false;
        await health;
        out[`limit${limit}`] = { status: result.status, ms: Math.round(result.ms), rssBeforeMiB: Math.round(before), rssPeakMiB: Math.round(peak), healthMaxMs: Math.round(healthMax) };
        figures(`${dialect} large-values populate limit=${limit}`, out[`limit${limit}`]);
        expectTooLarge(result);
        expect(result.ms, 'time to the 413').to.be.lessThan(ANSWER_MS);
        expect(peak - before, `resident memory growth (MiB), ${before} → ${peak}`).to.be.lessThan(ONE_MAX_MIB);
        expect(healthMax, '/health wait (ms)').to.be.lessThan(1000);
      }
    });

    it('six lists of 100 tags of 1 MB notes at once: six 413s naming ANSWER_MAX_BYTES, within six times ANSWER_MAX_BYTES of memory', async () => {
      const { result, before, peak } = await rssWhile(server, () => Promise.all(Array.from({ length: 6 }, () => get(`${server.url}/api/tag?limit=100`, reader))));
      figures(`${dialect} large-values six lists`, { statuses: result.map((r) => r.status), msMax: Math.round(Math.max(...result.map((r) => r.ms))), rssBeforeMiB: Math.round(before), rssPeakMiB: Math.round(peak) });
      for (const r of result) {
        expectTooLarge(r);
        expect(r.ms, 'time to the 413').to.be.lessThan(ANSWER_MS * 2);
      }
      expect(peak - before, `resident memory growth (MiB), ${before} → ${peak}`).to.be.lessThan(SIX_MAX_MIB);
      expect(peak, `resident memory (MiB) at its peak`).to.be.lessThan(SIX_PEAK_MIB);
    });
  });
}
