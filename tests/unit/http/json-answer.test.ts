/**
 * core/http/json-answer.ts: the serializer writes exactly what JSON.stringify writes, whole for a small
 * answer (WHOLE_MAX_NODES) and piece by piece past it, bounds the bytes (ANSWER_MAX_BYTES: at the limit
 * and one byte past, multi-byte characters counted as bytes) either way, and yields to the event loop
 * while it works on a large answer: long strings (text fields) are cut into pieces, never inside a
 * surrogate pair, and give the same text as JSON.stringify.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { jsonAnswer, LONG_STRING_CHARS, WHOLE_MAX_CHARS, WHOLE_MAX_NODES } from '../../../core/http/json-answer';
import { AnswerTooLargeError } from '../../../core/errors/errors';
import { markJsonLeaf } from '../../../core/http/json-leaves';

const text = async (body: unknown, max = Number.POSITIVE_INFINITY, afterWrite = false): Promise<string> => {
  const { buffers, bytes } = await jsonAnswer(body, max, afterWrite);
  const all = Buffer.concat(buffers);
  expect(all.length).to.equal(bytes);
  return all.toString('utf8');
};

/** `run`'s result, and how many turns of the event loop other work had while it ran. */
async function withTurnsCounted<T>(run: () => Promise<T>): Promise<{ out: T; turns: number }> {
  let turns = 0;
  let ticking = true;
  const tick = (): void => {
    turns += 1;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const out = await run();
  ticking = false;
  return { out, turns };
}

const record = (i: number): Record<string, unknown> => ({ id: i, name: `n${i}`, city: null, score: 1.5, flag: true, meta: { a: [1, { b: 'x' }] } });


/** Characters JSON escapes or UTF-8 writes in several bytes, lone surrogates and pairs among them. */
const AWKWARD = ['"', '\\', '\n', '\t', '\u0000', '\u001f', '\u007f', '\u2028', '\u2029', 'é', '€', '😀', '\ud83d', '\ude00', 'a', '/', '<', ' '];
const awkwardString = (maxLength: number): fc.Arbitrary<string> =>
  fc.oneof(fc.string({ unit: fc.constantFrom(...AWKWARD), maxLength }), fc.string({ unit: 'binary', maxLength }), fc.string({ maxLength }));
/** Scalars and records as a list answer carries them: unicode, escapes, nulls, numbers, empty lists. */
const awkwardValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    awkwardString(40),
    fc.constant(null),
    fc.boolean(),
    fc.double(),
    fc.integer(),
    fc.constantFrom(0, -0, 1e21, 1e-7, Number.MAX_SAFE_INTEGER, Number.MIN_VALUE, Number.NaN, Number.POSITIVE_INFINITY),
    fc.constant([]),
    fc.constant({}),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(awkwardString(8), tie('value'), { maxKeys: 5 }),
  ),
})).value;

/** A string longer than LONG_STRING_CHARS whose piece boundaries fall on `at`: a pair, a lone half, an escape. */
const longAround = (fill: string, at: string): string => {
  const head = fill.repeat(Math.ceil((LONG_STRING_CHARS - 1) / fill.length)).slice(0, LONG_STRING_CHARS - 1);
  return `${head}${at}${head}${at}${head.slice(0, 17)}`;
};

describe('json answer serializer', () => {
  it('writes exactly JSON.stringify for random JSON values, records with nested lists and odd values', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 6 }), async (v) => {
        expect(await text(v)).to.equal(JSON.stringify(v));
      }),
      { numRuns: 300 },
    );
    const odd = {
      records: [{ ...record(1), gone: undefined, fn: () => 1, when: new Date(0), list: [undefined, null, 2], deep: { children: [record(2), { ...record(3), children: [record(4)] }] } }],
      meta: { totalRecords: 1 },
      empty: {},
      emptyList: [],
      '__proto__x': 1,
    };
    expect(await text(odd)).to.equal(JSON.stringify(odd));
    const parsed: unknown = JSON.parse('{"__proto__": {"x": [ {"y": 1} ]}, "k": [ {"z": [ {"w": 2} ]} ]}');
    expect(await text(parsed)).to.equal(JSON.stringify(parsed));
  });

  it('past WHOLE_MAX_NODES objects too (the piecewise path): exactly JSON.stringify', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.jsonValue({ maxDepth: 3 }), { minLength: 1, maxLength: 20 }), async (tail) => {
        const body = { records: [...Array.from({ length: WHOLE_MAX_NODES }, (_, i) => ({ id: i })), ...tail], meta: { n: 1 } };
        expect(await text(body)).to.equal(JSON.stringify(body));
      }),
      { numRuns: 30 },
    );
  });

  it('at WHOLE_MAX_NODES objects (whole) and one past (in pieces): the same bytes, the ETag of the bytes, the same byte bound', async () => {
    // the body, its list and its records: WHOLE_MAX_NODES objects and arrays, then one more
    for (const n of [WHOLE_MAX_NODES - 2, WHOLE_MAX_NODES - 1]) {
      const body = { records: Array.from({ length: n }, (_, i) => ({ id: i, name: i % 7 ? `n${i}` : 'é€😀' })) };
      const expected = Buffer.from(JSON.stringify(body));
      const { buffers, bytes, etag } = await jsonAnswer(body, expected.length, false, true);
      expect(Buffer.concat(buffers).equals(expected), `${n} records`).to.equal(true);
      expect(bytes).to.equal(expected.length);
      expect(etag).to.equal(`"${createHash('sha1').update(expected).digest('base64url')}"`);
      expect(await jsonAnswer(body, expected.length - 1).catch((e: unknown) => e), `${n} records, one byte under`).to.be.instanceOf(AnswerTooLargeError);
    }
  });

  it('an answer of exactly maxBytes passes; one byte more is AnswerTooLargeError naming ANSWER_MAX_BYTES', async () => {
    const body = { records: [record(1), { ...record(2), name: 'é€😀' }], meta: { total: 2 } };
    const size = Buffer.byteLength(JSON.stringify(body));
    expect(await text(body, size)).to.equal(JSON.stringify(body));
    const err = await jsonAnswer(body, size - 1).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(AnswerTooLargeError);
    expect((err as AnswerTooLargeError).status).to.equal(413);
    expect((err as AnswerTooLargeError).details).to.deep.equal({ setting: 'ANSWER_MAX_BYTES', limit: size - 1 });
    const afterWrite = await jsonAnswer(body, 10, true).catch((e: unknown) => e);
    expect((afterWrite as Error).message).to.match(/ANSWER_MAX_BYTES.*carried out/);
  });

  it('awkward values (unicode, escapes, nested nulls, numbers, empty lists) in records past the whole path: exactly JSON.stringify, the ETag of its bytes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.dictionary(awkwardString(10), awkwardValue, { maxKeys: 8 }), { minLength: 1, maxLength: 30 }), async (records) => {
        const body = { records: [...Array.from({ length: WHOLE_MAX_NODES }, (_, i) => ({ id: i, children: [] })), ...records], meta: { total: null, empty: [] } };
        const expected = Buffer.from(JSON.stringify(body));
        const { buffers, bytes, etag } = await jsonAnswer(body, Number.POSITIVE_INFINITY, false, true);
        const got = Buffer.concat(buffers);
        expect(got.toString('utf8')).to.equal(expected.toString('utf8'));
        expect(got.equals(expected)).to.equal(true);
        expect(bytes).to.equal(expected.length);
        expect(etag).to.equal(`"${createHash('sha1').update(expected).digest('base64url')}"`);
      }),
      { numRuns: 40 },
    );
  });

  it('long strings (text fields) in pieces: exactly JSON.stringify, whatever falls on a piece boundary', async () => {
    const boundaries = ['😀', '\ud83d', '\ude00', '\ud83d\ud83d', '"', '\\', '\n', 'é', '\u2028', 'x'];
    for (const fill of ['a', 'é"\\', '😀', '\u0001', 'ab😀']) {
      for (const at of boundaries) {
        const s = longAround(fill, at);
        const body = { records: [{ id: 1, body: s, list: [s, null, ''] }, { id: 2, body: null, children: [{ note: s }] }], meta: {} };
        expect(await text(body), `fill ${JSON.stringify(fill)}, boundary ${JSON.stringify(at)}`).to.equal(JSON.stringify(body));
      }
    }
    await fc.assert(
      fc.asyncProperty(awkwardString(300), fc.nat(LONG_STRING_CHARS), async (fragment, shift) => {
        const s = `${'é'.repeat(shift)}${(fragment || '"').repeat(Math.ceil((2 * LONG_STRING_CHARS + 1) / (fragment.length || 1)))}`;
        const body = { records: [{ id: 1, text: s }], long: s };
        expect(await text(body)).to.equal(JSON.stringify(body));
      }),
      { numRuns: 25 },
    );
  });

  it('an answer of few objects but long strings takes the piecewise path (WHOLE_MAX_CHARS): the same bytes and byte bound, turns of the loop given', async () => {
    for (const chars of [WHOLE_MAX_CHARS - 1, WHOLE_MAX_CHARS + 1]) {
      const body = { records: [{ id: 1, body: 'é'.repeat(chars - 1) }], meta: { n: 1 } };
      const expected = Buffer.from(JSON.stringify(body));
      expect(await text(body, expected.length), `${chars} characters`).to.equal(JSON.stringify(body));
      expect(await jsonAnswer(body, expected.length - 1).catch((e: unknown) => e), `${chars} characters, one byte under`).to.be.instanceOf(AnswerTooLargeError);
    }
    // 6 MB of text in two records (before: one JSON.stringify of it all, no turn given)
    const long = { records: [{ id: 1, body: 'x"é'.repeat(1_000_000) }, { id: 2, body: 'y\\€'.repeat(1_000_000) }] };
    const { out, turns } = await withTurnsCounted(() => text(long));
    expect(out).to.equal(JSON.stringify(long));
    expect(turns, 'turns of the loop while serializing').to.be.above(3);
  });

  it('an object shown under many parents (a populated record) gives the same bytes and ETag as JSON.stringify, whatever its size', async () => {
    const feeTypes = Array.from({ length: 30 }, (_, i) => ({ ...record(i), name: `é"${i}\\😀`, attachments: [], note: null }));
    const institute = { id: 1, name: 'One', feeTypes, logo: null };
    const big = { id: 2, text: 'x"é'.repeat(120_000), feeTypes }; // kept bytes bounded: walked anew each time
    const shared = { records: Array.from({ length: 100 }, (_, i) => ({ ...record(i), institute: i % 3 ? institute : big, again: i % 10 ? null : institute })), meta: { institute } };
    for (const body of [shared, { records: [institute, institute, [institute, { deeper: { institute } }], feeTypes, feeTypes] }]) {
      const expected = Buffer.from(JSON.stringify(body));
      const { buffers, bytes, etag } = await jsonAnswer(body, Number.POSITIVE_INFINITY, false, true);
      expect(Buffer.concat(buffers).equals(expected)).to.equal(true);
      expect(bytes).to.equal(expected.length);
      expect(etag).to.equal(`"${createHash('sha1').update(expected).digest('base64url')}"`);
      expect(await jsonAnswer(body, expected.length - 1).catch((e: unknown) => e), 'one byte under').to.be.instanceOf(AnswerTooLargeError);
    }
  });

  it('json attribute values (marked leaves), small or large, deep, shared or not: exactly JSON.stringify, the ETag of its bytes, the byte bound', async () => {
    let deep: unknown = ['é"\\😀', null, 1.5];
    for (let i = 1; i < 29; i++) deep = [deep, { i }];
    const large = markJsonLeaf(Array.from({ length: 3000 }, (_, i) => [i, deep, { k: `v${i}\u2028` }]));
    const small = markJsonLeaf({ a: [1, { b: 'x' }], c: null });
    const long = markJsonLeaf({ text: 'x"é'.repeat(40_000) });
    const body = { records: Array.from({ length: 50 }, (_, i) => ({ ...record(i), payload: i % 2 ? large : i % 3 ? small : long, other: i === 7 ? markJsonLeaf([]) : null })) };
    const expected = Buffer.from(JSON.stringify(body));
    const { buffers, bytes, etag } = await jsonAnswer(body, Number.POSITIVE_INFINITY, false, true);
    expect(Buffer.concat(buffers).equals(expected)).to.equal(true);
    expect(bytes).to.equal(expected.length);
    expect(etag).to.equal(`"${createHash('sha1').update(expected).digest('base64url')}"`);
    expect(Buffer.concat((await jsonAnswer(body, expected.length)).buffers).equals(expected), 'at the bound').to.equal(true);
    expect(await jsonAnswer(body, expected.length - 1).catch((e: unknown) => e), 'one byte under').to.be.instanceOf(AnswerTooLargeError);
  });

  it('a large json attribute value is written whole: one answer of 25 records showing one 480 KB value of arrays 29 deep takes well under 100 ms', async () => {
    const deep = (n: number): unknown => {
      let v: unknown = [n];
      for (let i = 1; i < 29; i++) v = [v];
      return v;
    };
    const value = markJsonLeaf(Array.from({ length: 8000 }, (_, i) => deep(i)));
    const body = { records: Array.from({ length: 25 }, (_, i) => ({ ...record(i), tags: [{ id: 7, label: 'deep', payload: value }] })) };
    const t0 = performance.now();
    const { bytes } = await jsonAnswer(body, Number.POSITIVE_INFINITY);
    const ms = performance.now() - t0;
    expect(bytes).to.equal(Buffer.byteLength(JSON.stringify(body)));
    // Walked piece by piece (a generator per level, down to depth 32) it took 0.3–0.7 s per occurrence.
    expect(ms).to.be.lessThan(100);
  });

  it('gives other work turns of the event loop while a large answer is serialized', async () => {
    const children = Array.from({ length: 40 }, (_, i) => record(i));
    const body = { records: Array.from({ length: 2000 }, (_, i) => ({ ...record(i), children })) };
    const { out, turns } = await withTurnsCounted(() => text(body));
    expect(out.length).to.be.above(5_000_000);
    expect(turns, 'turns of the loop while serializing').to.be.above(3);
  });
});
