/** Issue 2 "done when": a field added to fee-type.yaml appears in the API after a restart, existing records intact. */
import { expect } from 'chai';
import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIALECTS } from '../../helpers/dialects';
import { ROOT, startTestApp } from '../../helpers/test-app';
import { createTestDatabase } from '../../helpers/test-db';

for (const dialect of DIALECTS) {
  describe(`edit YAML, restart [${dialect}]`, () => {
    it('serves a new field after a restart and keeps every existing value', async () => {
      const models = mkdtempSync(join(tmpdir(), 'ris-models-'));
      cpSync(join(ROOT, 'content-types'), models, { recursive: true });
      const database = await createTestDatabase(dialect);
      try {
        const first = await startTestApp(dialect, { contentTypesDir: models, database });
        const inst = (await first.http.post('/api/institute', { name: 'Keep', code: 'KEEP' })).body.data;
        const made = await first.http.post('/api/fee-type', { feeType: 'Kept', instituteId: inst.id, latePaymentFees: 7.25, dueDate: '2026-05-01' });
        expect(made.status).to.equal(200);
        await first.close();

        appendFileSync(join(models, 'fee-type.yaml'), '  notes:\n    type: text\n  priority:\n    type: integer\n    default: 3\n');
        const second = await startTestApp(dialect, { contentTypesDir: models, database });
        try {
          const got = await second.http.get(`/api/fee-type/${made.body.data.id}?populate[0]=institute`);
          expect(got.status).to.equal(200);
          expect(got.body).to.include({ feeType: 'Kept', latePaymentFees: 7.25, dueDate: '2026-05-01', instituteId: inst.id, notes: null, priority: 3 });
          expect(got.body.institute).to.include({ code: 'KEEP' });
          const patched = await second.http.patch(`/api/fee-type/${made.body.data.id}`, { notes: 'now writable' });
          expect(patched.body.data).to.include({ notes: 'now writable', feeType: 'Kept' });
          expect((await second.http.get('/api/fee-type?filters[notes][$containsi]=WRITABLE')).body.meta.totalRecords).to.equal(1);
        } finally {
          await second.close();
        }
      } finally {
        await database.drop();
        rmSync(models, { recursive: true, force: true });
      }
    });
  });
}
