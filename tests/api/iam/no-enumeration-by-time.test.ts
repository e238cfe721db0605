/**
 * README Security, "Account enumeration": forgot-password and OTP sign-in answer alike whether or not
 * the account exists, in time too. Issuing the code is a write that a missing account skips; awaited,
 * it made the answer measurably slower for accounts that exist (PostgreSQL medians 6.8 vs 2.3 ms). Now
 * the answer never waits for it: with the code table locked by another transaction, both answers come
 * at once, and the code follows once the lock is gone.
 */
import { expect } from 'chai';
import knex from 'knex';
import { DIALECTS, type TestDialect } from '../../helpers/dialects';
import { MailSink, otpIn, resetTokenIn } from '../../helpers/sinks';
import { startTestApp, type TestApp, type TestUser } from '../../helpers/test-app';

/** How long the code table stays locked; an answer that waited for the write would take this long. */
const HELD_MS = 4000;

/**
 * Takes the code table's write lock in a transaction of its own (released by `release`). SQLite: the
 * database file's write lock, from a connection of another "process" (the service's own connection
 * stays free for the reads every answer makes; its write waits for busy_timeout).
 */
async function lockCodes(app: TestApp, dialect: TestDialect): Promise<{ release: () => Promise<void> }> {
  if (dialect === 'sqlite') {
    const other = knex({ client: 'sqlite3', connection: { filename: app.env.DATABASE_URL.replace(/^sqlite:/, '') }, useNullAsDefault: true, pool: { min: 1, max: 1 } });
    await other.raw('BEGIN IMMEDIATE');
    return {
      release: async () => {
        await other.raw('ROLLBACK');
        await other.destroy();
      },
    };
  }
  const trx = await app.deps.db.transaction();
  if (dialect === 'postgres') await trx.raw('LOCK TABLE one_time_codes IN EXCLUSIVE MODE');
  else await trx.raw('LOCK TABLES one_time_codes WRITE');
  return {
    release: async () => {
      if (dialect === 'mysql') await trx.raw('UNLOCK TABLES');
      await trx.rollback();
    },
  };
}

for (const dialect of DIALECTS) {
  describe(`identity: no account enumeration by answer time [${dialect}]`, () => {
    let app: TestApp;
    let mail: MailSink;
    let user: TestUser;
    before(async () => {
      mail = await new MailSink().start();
      app = await startTestApp(dialect, { env: { IAM_PASSWORD_LESS_REGISTRATION: 'true', SMTP_URL: mail.url } });
      user = await app.createUser();
    });
    after(async () => {
      await app?.close();
      await mail?.close();
    });

    const cases: [string, string, (email: string) => Record<string, unknown>, (m: Parameters<typeof otpIn>[0]) => string][] = [
      ['forgot-password', '/api/iam/initiate/forgot-password', (email) => ({ email }), resetTokenIn],
      ['OTP sign-in', '/api/iam/otp/login/initiate', (email) => ({ identifier: email }), otpIn],
    ];
    for (const [what, path, body, codeIn] of cases) {
      it(`${what}: the answer for an existing account does not wait for its code; the code follows`, async function () {
        this.timeout(30_000);
        const since = mail.count();
        const lock = await lockCodes(app, dialect);
        let released = false;
        const releasing = new Promise<void>((resolve, reject) => {
          setTimeout(() => {
            released = true;
            lock.release().then(resolve, reject);
          }, HELD_MS);
        });
        try {
          // (SQLite: the code's write, once under way, holds the one connection the next answer's read needs,
          // so the missing account is asked first)
          const unknown = await app.anon.post(path, body('nobody-here@example.test'));
          const started = Date.now();
          const known = await app.anon.post(path, body(user.email));
          const knownMs = Date.now() - started;
          expect(released, 'both answered while the code table was locked').to.equal(false);
          expect(knownMs).to.be.lessThan(HELD_MS / 2);
          expect(known.status).to.equal(200);
          expect(known.body.message).to.be.a('string').and.equal(unknown.body.message);
        } finally {
          await releasing;
        }
        // The code was issued and sent once the lock was gone.
        expect(codeIn(await mail.next(user.email, since, 10_000))).to.be.a('string').and.not.equal('');
      });
    }
  });
}
