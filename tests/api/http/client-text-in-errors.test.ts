/**
 * An error that quotes what the client sent (a query key or value, a header value, a path segment, a
 * body field name) quotes at most 100 characters of it, then `…` (core/errors/client-text.ts): the
 * answer stays small whatever the request held. On SQLite, PostgreSQL and MariaDB.
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp } from '../../helpers/test-app';

/** 20,000 characters: within the query string (32 KiB) and request head (48 KiB) limits. */
const LONG = `${'q'.repeat(100)}${'z'.repeat(19_900)}`;
const CUT = `${'q'.repeat(100)}…`;

interface Reply {
  readonly status: number;
  readonly text: string;
  readonly body: { error: { message: string; details: Record<string, unknown> } };
}

for (const dialect of DIALECTS) {
  describe(`errors quote at most 100 characters of client text [${dialect}]`, () => {
    let app: TestApp;

    before(async () => {
      app = await startTestApp(dialect);
    });
    after(async () => {
      await app?.close();
    });

    const call = async (path: string, init: RequestInit = {}): Promise<Reply> => {
      const headers = { authorization: `Bearer ${app.admin?.accessToken}`, ...(init.headers as Record<string, string> | undefined) };
      const res = await fetch(app.url + path, { ...init, headers, signal: AbortSignal.timeout(10_000) });
      const text = await res.text();
      return { status: res.status, text, body: JSON.parse(text) as Reply['body'] };
    };
    /** The answer has `status`, quotes the start of the text, cut (never the rest), and stays under 2 KB. */
    const quotesCut = (r: Reply, status: number): void => {
      expect(r.status, r.text.slice(0, 300)).to.equal(status);
      expect(r.body.error.message).to.match(/q{90,100}…/);
      expect(r.text).to.not.contain('z');
      expect(Buffer.byteLength(r.text), 'answer bytes').to.be.below(2048);
    };

    it('realtime: a 20 KB Last-Event-ID header, a long unknown query key, a long model name (400)', async () => {
      const lastEventId = await call('/api/realtime?models=fee-type', { headers: { 'last-event-id': LONG } });
      quotesCut(lastEventId, 400);
      const key = await call(`/api/realtime?${LONG}=1`);
      quotesCut(key, 400);
      expect(key.body.error.details).to.deep.equal({ parameter: CUT });
      quotesCut(await call(`/api/realtime?models=${LONG}`), 400);
    });

    it('records: an unknown query key of a write, a long id in the path, an unknown route (400, 404)', async () => {
      const key = await call(`/api/fee-type?${LONG}=1`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"feeType":"x"}' });
      quotesCut(key, 400);
      expect(key.body.error.details).to.deep.equal({ parameter: CUT });
      quotesCut(await call(`/api/fee-type/${LONG}`), 400);
      quotesCut(await call(`/api/${LONG}`), 404);
    });

    it('queries: a long field name, operator, value or group key (400 naming the parameter, cut too)', async () => {
      const field = await call(`/api/fee-type?filters[${LONG}][$eq]=1`);
      quotesCut(field, 400);
      expect(String(field.body.error.details.parameter)).to.have.length.below(102);
      quotesCut(await call(`/api/fee-type?filters[feeType][$${LONG}]=1`), 400);
      quotesCut(await call(`/api/fee-type?filters[id][$eq]=${LONG.slice(0, 9000)}`), 400);
      quotesCut(await call(`/api/fee-type?sort[0]=${LONG.slice(0, 9000)}`), 400);
      quotesCut(await call(`/api/fee-type?groupBy[0]=${LONG.slice(0, 9000)}`), 400);
    });

    it('bodies: a long Content-Type (415), a long unknown field name (422 whose details name it cut)', async () => {
      quotesCut(await call('/api/fee-type', { method: 'POST', headers: { 'content-type': `text/${LONG}` }, body: 'x' }), 415);
      const unknown = await call('/api/fee-type', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ feeType: 'x', [LONG]: 1 }) });
      expect(unknown.status).to.equal(422);
      expect(unknown.body.error.details.fields).to.have.property(CUT);
      expect(unknown.text).to.not.contain('z');
      expect(Buffer.byteLength(unknown.text)).to.be.below(2048);
    });
  });
}
