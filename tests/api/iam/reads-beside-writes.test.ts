/**
 * A long write does not hold other callers' sign-in checks (hostile review, 2026-11-25): who the bearer
 * is (session, account, roles) and what its roles may do (permissions, row rules) are reads, and go
 * where reads go (SQLite's read-only connections), so a caller's cheap read does not wait for another
 * caller's long transaction on the single SQLite writer, nor for a write holding its own account's row.
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp } from '../../helpers/test-app';

/** How long the test's own transaction holds the writer. */
const HOLD_MS = 3000;

for (const dialect of DIALECTS) {
  describe(`identity: sign-in checks beside a long write [${dialect}]`, () => {
    let app: TestApp;

    before(async () => {
      app = await startTestApp(dialect);
    });
    after(async () => {
      await app?.close();
    });

    /**
     * Runs `read` while a transaction holds the writer (and the caller's own account row) for HOLD_MS;
     * how long `read` took.
     */
    const whileWriting = async (userId: number, read: () => Promise<{ status: number; text: string }>): Promise<number> => {
      let holding!: () => void;
      const held = new Promise<void>((resolve) => (holding = resolve));
      const write = app.deps.db.transaction(async (trx) => {
        await trx('users').where('id', userId).update({ updated_at: trx.fn.now() });
        holding();
        await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
      });
      await held;
      const t0 = Date.now();
      const res = await read();
      const took = Date.now() - t0;
      await write;
      expect(res.status, res.text).to.equal(200);
      return took;
    };

    it('a fresh session token (nothing cached) reads a record while another transaction holds the writer and its account row', async () => {
      const user = await app.createUser();
      // a new session: its lookup is not in the authenticator's cache
      const fresh = await app.signIn(user.username, user.password);
      const took = await whileWriting(user.id, () => fresh.http.get('/api/fee-type?limit=1'));
      expect(took, 'ms the read waited').to.be.below(HOLD_MS / 2);
    });

    it('a request without a token (the public role, its permissions not yet read) answers beside the long write', async () => {
      const admin = app.admin as NonNullable<TestApp['admin']>;
      const took = await whileWriting(admin.id, async () => {
        const res = await app.anon.get('/api/fee-type?limit=1');
        // the public role may read nothing here: a prompt 401 naming the permission is the answer, not a wait
        expect(res.body.error?.message, res.text).to.equal('authentication required: fee-type.find');
        return { status: res.status === 401 ? 200 : res.status, text: res.text };
      });
      expect(took, 'ms the anonymous request waited').to.be.below(HOLD_MS / 2);
    });
  });
}
