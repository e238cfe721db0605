/**
 * core/http/json-answer.ts: the serializer writes exactly what JSON.stringify writes, whole for a small
 * answer (WHOLE_MAX_NODES) and piece by piece past it, bounds the bytes (ANSWER_MAX_BYTES: at the limit
 * and one byte past, multi-byte characters counted as bytes) either way, and yields to the event loop
 * while it works on a large answer.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { jsonAnswer, WHOLE_MAX_NODES } from '../../../core/http/json-answer';
import { AnswerTooLargeError } from '../../../core/errors/errors';

const text = async (body: unknown, max = Number.POSITIVE_INFINITY, afterWrite = false): Promise<string> => {
  const { buffers, bytes } = await jsonAnswer(body, max, afterWrite);
  const all = Buffer.concat(buffers);
  expect(all.length).to.equal(bytes);
  return all.toString('utf8');
};

const record = (i: number): Record<string, unknown> => ({ id: i, name: `n${i}`, city: null, score: 1.5, flag: true, meta: { a: [1, { b: 'x' }] } });

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

  it('gives other work turns of the event loop while a large answer is serialized', async () => {
    const children = Array.from({ length: 40 }, (_, i) => record(i));
    const body = { records: Array.from({ length: 2000 }, (_, i) => ({ ...record(i), children })) };
    let turns = 0;
    let ticking = true;
    const tick = (): void => {
      turns += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const out = await text(body);
    ticking = false;
    expect(out.length).to.be.above(5_000_000);
    expect(turns, 'turns of the loop while serializing').to.be.above(3);
  });
});
