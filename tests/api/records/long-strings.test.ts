/**
 * A `string` with a long `maxLength` boots and stores on every database: MariaDB's varchar holds 16383
 * characters at most and a row's varchars 65535 bytes together, so there such a column is longtext. At the
 * limit a value is stored and read back exactly; one past it is refused (422); unique still holds.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import { DIALECTS } from '../../helpers/dialects';
import { ROOT, startTestApp, type TestApp } from '../../helpers/test-app';

const MODELS = join(ROOT, 'tests', 'fixtures', 'long-strings');

for (const dialect of DIALECTS) {
  describe(`long strings [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: MODELS });
    });
    after(async () => app?.close());

    it('stores a string of maxLength 100000 and reads it back exactly; one character more is refused', async () => {
      const body = 'é'.repeat(50000) + 'x'.repeat(50000);
      const made = await app.http.post('/api/memo', { body, summary: 's'.repeat(12000), code: 'c'.repeat(768), ref: 'r'.repeat(769) });
      expect(made.status, made.text.slice(0, 300)).to.equal(200);
      const read = await app.http.get(`/api/memo/${made.body.data.id as number}`);
      expect(read.body.body).to.equal(body);
      expect(read.body.summary).to.equal('s'.repeat(12000));
      expect(read.body.abstract).to.equal('none yet');
      const long = await app.http.post('/api/memo', { body: `${body}x` });
      expect(long.status, long.text.slice(0, 300)).to.equal(422);
      expect(long.body.error.details.fields).to.have.keys('body');
    });

    it('keeps unique at and past the varchar limit', async () => {
      const first = await app.http.post('/api/memo', { code: `${'k'.repeat(767)}1`, ref: `${'q'.repeat(768)}1` });
      expect(first.status, first.text.slice(0, 300)).to.equal(200);
      for (const dup of [{ code: `${'k'.repeat(767)}1` }, { ref: `${'q'.repeat(768)}1` }]) {
        const again = await app.http.post('/api/memo', dup);
        expect(again.status, again.text.slice(0, 300)).to.equal(409);
      }
      expect((await app.http.post('/api/memo', { code: `${'k'.repeat(767)}2`, ref: `${'q'.repeat(768)}2` })).status).to.equal(200);
    });
  });
}
