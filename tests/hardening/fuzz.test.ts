/**
 * Issue 8: hostile input. fast-check generates qs-shaped query strings ($ operators, brackets, deep
 * nesting, huge numbers, unicode, __proto__ / constructor) and JSON bodies (deep nesting, huge
 * arrays, wrong types, prototype keys) against the running service on each database. Whatever comes
 * in: never a 5xx, never a second or more, always the spec-7 error shape, and no stack trace or SQL
 * text in any answer.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { DIALECTS } from '../helpers/dialects';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { figures, percentile } from './helpers/load';

const QUERY_RUNS = Number(process.env.FUZZ_QUERY_RUNS ?? 4000);
const BODY_RUNS = Number(process.env.FUZZ_BODY_RUNS ?? 2500);
const TIME_LIMIT_MS = 90_000;
const MAX_MS = 1000;

/** What must never reach a client: stack frames, file paths, SQL, driver names. */
const LEAK = /\n\s+at |node_modules|\w\.(?:js|ts):\d+|\bselect\s.+\sfrom\s|\binsert\s+into\b|\bdelete\s+from\b|\bupdate\s+\S+\s+set\b|SQLITE_|sqlite3|syntax error at|pg_catalog|\bknex\b|Knex:/i;

interface Seen {
  statuses: Record<string, number>;
  ms: number[];
}

async function probe(app: TestApp, seen: Seen, method: string, path: string, raw: string | undefined): Promise<void> {
  const t0 = performance.now();
  const res = await fetch(app.url + path, { method, headers: raw === undefined ? {} : { 'content-type': 'application/json' }, body: raw });
  const text = await res.text();
  const ms = performance.now() - t0;
  seen.ms.push(ms);
  seen.statuses[res.status] = (seen.statuses[res.status] ?? 0) + 1;
  const where = `${method} ${path.slice(0, 300)}${raw === undefined ? '' : ` body ${raw.slice(0, 300)}`} → ${res.status} ${text.slice(0, 300)}`;
  if (res.status >= 500) throw new Error(`5xx: ${where}`);
  if (ms >= MAX_MS) throw new Error(`${Math.round(ms)} ms: ${where}`);
  if (LEAK.test(text)) throw new Error(`leak: ${where}`);
  // Node's HTTP parser answers an over-long request line + headers (> 48 KiB, core/http/server.ts) itself, before the app: 431, empty body.
  if (res.status === 431 && text === '') return;
  if (res.status >= 400) {
    let e: { status?: unknown; name?: unknown; message?: unknown; details?: unknown } | undefined;
    try {
      e = (JSON.parse(text) as { error?: typeof e }).error;
    } catch {
      throw new Error(`error answer is not JSON: ${where}`);
    }
    if (!e || e.status !== res.status || typeof e.name !== 'string' || typeof e.message !== 'string' || typeof e.details !== 'object') throw new Error(`not the spec-7 error shape: ${where}`);
  }
}

// ---- query strings ----

const PROTO = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__'];
const OPS = ['$eq', '$eqi', '$ne', '$lt', '$lte', '$gt', '$gte', '$in', '$notIn', '$contains', '$containsi', '$notContains', '$null', '$notNull', '$between', '$startsWith', '$endsWith', '$and', '$or', '$not', '$bogus', '$'];
const FIELDS = ['id', 'feeType', 'institute', 'code', 'name', 'city', 'dueDate', 'latePaymentFees', 'partPaymentAllowed', 'createdAt', 'deletedAt', 'feeTypes', 'attachments', 'logo'];
const ROOTS = ['filters', 'sort', 'fields', 'populate', 'populateMedia', 'limit', 'offset', 'page', 'showSoftDeleted', 'groupBy', 'aggregates', 'populateGroup', 'groupFilter', 'timezone', 'pagination', ...PROTO];

const text = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 8 }), fc.string({ unit: 'grapheme', maxLength: 6 }));
const segment = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...OPS) },
  { weight: 4, arbitrary: fc.constantFrom(...FIELDS) },
  { weight: 2, arbitrary: fc.constantFrom(...PROTO) },
  { weight: 2, arbitrary: fc.nat({ max: 600 }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom('', '[', ']', '][', '.', 'a.b', 'institute.code', '-id', 'id:DESC') },
  { weight: 1, arbitrary: text },
);
const value = fc.oneof(
  { weight: 3, arbitrary: text },
  { weight: 2, arbitrary: fc.constantFrom('1e309', '-1e309', '99999999999999999999999999', '-0', 'NaN', 'Infinity', '0x10', '1.5', '', 'true', 'false', 'null', '2026-13-45', '2026-03-31T25:61:00Z', '%', '_', '\\', "'", '"', '%00', '\u0000', '\uD800', 'é', '🙂', 'ｓｅｌｅｃｔ') },
  { weight: 2, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
  { weight: 1, arbitrary: fc.bigInt().map(String) },
  { weight: 1, arbitrary: fc.nat({ max: 12_000 }).map((n) => 'x'.repeat(n)) },
);
/** Percent-encodes the UTF-8 bytes of `s` (a lone surrogate becomes U+FFFD, where encodeURIComponent throws). */
const pct = (s: string): string => [...Buffer.from(s, 'utf8')].map((b) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
/** How a key is written: raw brackets, percent-encoded brackets, or dots. */
const keyStyle = fc.constantFrom('brackets', 'encoded', 'dots');
const param = fc.tuple(fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...ROOTS) }, { weight: 1, arbitrary: text }), fc.array(segment, { maxLength: 14 }), value, keyStyle).map(([root, segs, v, style]) => {
  const enc = pct;
  const key =
    style === 'dots' ? [root, ...segs].map(enc).join('.') : style === 'encoded' ? enc(root) + segs.map((s) => enc(`[${s}]`)).join('') : enc(root) + segs.map((s) => `[${enc(s)}]`).join('');
  return `${key}=${enc(v)}`;
});
const plausible = fc.oneof(value, fc.constantFrom('1', '2', 'SPH', 'seed 1', 'Fuzz High', '2026-03-31', '2026-03-31T00:00:00.000Z', 'true', 'false', 'fixed', '0', '10', '12.5', 'e'));
const wellFormed = fc.oneof(
  fc.tuple(fc.constantFrom('', '', '', '[institute]', '[feeTypes]', '[$not]', '[$or][0]', '[$and][1]', '[institute][feeTypes]'), fc.constantFrom(...FIELDS), fc.constantFrom(...OPS), fc.constantFrom('', '', '[0]', '[1]'), plausible).map(
    ([scope, f, op, idx, v]) => `filters${scope}[${f}][${op}]${idx}=${pct(v)}`,
  ),
  fc.tuple(fc.nat({ max: 9 }), fc.constantFrom(...FIELDS, 'institute.name', 'institute.code', 'feeTypes.feeType'), fc.constantFrom('', ':DESC', ':asc', ':sideways', '-')).map(([i, f, d]) => (d === '-' ? `sort[${i}]=-${f}` : `sort[${i}]=${f}${d}`)),
  fc.tuple(fc.nat({ max: 3 }), fc.constantFrom(...FIELDS, 'institute.feeTypes', 'feeTypes.institute')).map(([i, f]) => `populate[${i}]=${f}`),
  fc.tuple(fc.nat({ max: 3 }), fc.constantFrom(...FIELDS)).map(([i, f]) => `fields[${i}]=${f}`),
  fc.tuple(fc.nat({ max: 2 }), fc.constantFrom('feeType', 'institute.name', 'instituteId', 'dueDate', 'dueDate:month', 'createdAt:week', 'createdAt:hour', 'latePaymentFeesType', 'attachments', 'dueDate:century')).map(([i, g]) => `groupBy[${i}]=${g}`),
  fc.tuple(fc.nat({ max: 2 }), fc.constantFrom('latePaymentFees:sum', 'id:max', 'id:count', 'feeType:avg', 'latePaymentFees:median', '*:count')).map(([i, a]) => `aggregates[${i}]=${a}`),
  fc.constantFrom('timezone=Europe/Berlin', 'timezone=+05:30', 'timezone=Mars/Olympus', 'populateGroup[0]=institute', 'groupFilter[feeType][$eq]=x'),
  fc.tuple(fc.constantFrom('limit', 'offset', 'page', 'showSoftDeleted'), fc.oneof(value, fc.constantFrom('inclusive', 'exclusive', '5', '0', '100'))).map(([k, v]) => `${k}=${pct(v)}`),
);
const queryString = fc.oneof(
  { weight: 8, arbitrary: fc.array(param, { minLength: 1, maxLength: 12 }).map((ps) => ps.join('&')) },
  // deep nesting in one key, far past every limit
  { weight: 1, arbitrary: fc.nat({ max: 3000 }).map((d) => `filters${'[$and][0]'.repeat(d)}[id][$eq]=1`) },
  // many parameters / a huge $in list
  { weight: 1, arbitrary: fc.nat({ max: 800 }).map((n) => Array.from({ length: n }, (_, i) => `filters[id][$in][${i}]=${i}`).join('&')) },
  // well-formed filters, sorts and populates over real fields: these reach the compilers and the database
  { weight: 8, arbitrary: fc.array(wellFormed, { minLength: 1, maxLength: 3 }).map((ps) => ps.join('&')) },
  // raw bytes qs must survive: malformed percent escapes, stray brackets and separators
  { weight: 1, arbitrary: fc.array(fc.constantFrom('%', '%E0%A4%A', '%ZZ', '%00', '[', ']', '[]', '=', '&', '&&', '==', 'filters', '$eq', 'a', '1', '%5B', '%5D', ';', ',', '+', '%C0%AF', '%ED%A0%80'), { maxLength: 40 }).map((p) => p.join('')) },
);
const queryPath = fc.constantFrom('/api/fee-type', '/api/institute', '/api/fee-type/1', '/api/institute/1');

// ---- JSON bodies ----

const nested = (depth: number, leaf: unknown): unknown => {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : [v];
  return v;
};
const anyJson = fc.jsonValue({ maxDepth: 6 });
const fieldValue = fc.oneof(
  anyJson,
  fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, -0, 0.1, '', 'x'.repeat(300), '2026-02-30', '12:00:61', 'fixed', 'percentage', 'SPH'),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.integer(),
);
const recordBody = fc.dictionary(
  fc.oneof(fc.constantFrom('feeType', 'instituteId', 'instituteUserKey', 'partPaymentAllowed', 'latePaymentFeesType', 'latePaymentFees', 'dueDate', 'attachments', 'name', 'code', 'city', 'logo', 'id', 'createdAt', 'deletedTracker', ...PROTO), fc.string({ maxLength: 10 })),
  fieldValue,
  { maxKeys: 10 },
);
/** Serialised bodies: most valid JSON, some deliberately odd. */
const body = fc.oneof(
  { weight: 6, arbitrary: recordBody.map((b) => JSON.stringify(b)) },
  { weight: 2, arbitrary: anyJson.map((b) => JSON.stringify(b)) },
  { weight: 2, arbitrary: fc.array(recordBody, { maxLength: 5 }).map((b) => JSON.stringify(b)) },
  { weight: 1, arbitrary: fc.tuple(fc.nat({ max: 3000 }), recordBody).map(([n, r]) => JSON.stringify(Array.from({ length: n }, () => r))) },
  { weight: 1, arbitrary: fc.nat({ max: 50_000 }).map((n) => JSON.stringify(Array.from({ length: n }, (_, i) => i))) },
  // written by hand: JSON.stringify itself overflows the stack on these
  { weight: 1, arbitrary: fc.nat({ max: 20_000 }).map((d) => `{"feeType":${'['.repeat(d)}"x"${']'.repeat(d)}}`) },
  { weight: 1, arbitrary: fc.nat({ max: 100 }).map((d) => JSON.stringify(nested(d, { feeType: 'n' }))) },
  { weight: 1, arbitrary: fc.constantFrom('{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}', '{"feeType":"a","feeType":"b"}', '{', '[', 'null', '""', '1', '{"a":1e999}', '{"a":"\\ud800"}', '\u0000', '{"a":1,}') },
  { weight: 1, arbitrary: fc.string({ maxLength: 100 }) },
);
const bodyTarget = fc.constantFrom(
  ['POST', '/api/fee-type'],
  ['POST', '/api/fee-type/bulk'],
  ['POST', '/api/institute'],
  ['PATCH', '/api/fee-type/1'],
  ['PUT', '/api/fee-type/1'],
  ['PATCH', '/api/institute/1'],
  ['DELETE', '/api/fee-type/bulk'],
  ['POST', '/api/fee-type/recover/bulk'],
) as fc.Arbitrary<[string, string]>;

for (const dialect of DIALECTS) {
  describe(`hostile input, fuzzed [${dialect}]`, function () {
    this.timeout(TIME_LIMIT_MS * 2 + 30_000);
    let app: TestApp;
    before(async () => {
      app = await startTestApp(dialect);
      const inst = await app.http.post('/api/institute', { name: 'Fuzz High', code: 'SPH' });
      expect(inst.status).to.equal(200);
      for (let i = 0; i < 5; i++) await app.http.post('/api/fee-type', { feeType: `seed ${i}`, instituteId: inst.body.data.id });
    });
    after(async () => app?.close());

    it(`${QUERY_RUNS} query strings: no 5xx, under a second, error shape, no leak`, async () => {
      const seen: Seen = { statuses: {}, ms: [] };
      const t0 = Date.now();
      const result = await fc.check(
        fc.asyncProperty(queryPath, queryString, async (path, qs) => probe(app, seen, 'GET', `${path}?${qs}`, undefined)),
        { numRuns: QUERY_RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS, endOnFailure: true },
      );
      figures(`fuzz query strings [${dialect}]`, { cases: result.numRuns, seconds: (Date.now() - t0) / 1000, byStatus: seen.statuses, msP50: Math.round(percentile(seen.ms, 50)), msP99: Math.round(percentile(seen.ms, 99)), msMax: Math.round(Math.max(...seen.ms)), seed: result.seed });
      if (result.failed) throw new Error(`counterexample (seed ${result.seed}, path ${result.counterexamplePath}): ${String(result.errorInstance)}`);
      expect(result.numRuns).to.be.greaterThan(QUERY_RUNS / 2);
    });

    it(`${BODY_RUNS} JSON bodies: no 5xx, under a second, error shape, no leak`, async () => {
      const seen: Seen = { statuses: {}, ms: [] };
      const t0 = Date.now();
      const result = await fc.check(
        fc.asyncProperty(bodyTarget, body, async ([method, path], raw) => probe(app, seen, method, path, raw)),
        { numRuns: BODY_RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS, endOnFailure: true },
      );
      figures(`fuzz JSON bodies [${dialect}]`, { cases: result.numRuns, seconds: (Date.now() - t0) / 1000, byStatus: seen.statuses, msP50: Math.round(percentile(seen.ms, 50)), msP99: Math.round(percentile(seen.ms, 99)), msMax: Math.round(Math.max(...seen.ms)), seed: result.seed });
      if (result.failed) throw new Error(`counterexample (seed ${result.seed}, path ${result.counterexamplePath}): ${String(result.errorInstance)}`);
      expect(result.numRuns).to.be.greaterThan(BODY_RUNS / 2);
      expect(({} as Record<string, unknown>).x, 'Object.prototype untouched').to.equal(undefined);
    });
  });
}
