/**
 * Dialect.claimRows (the webhook deliveries' claim): workers claiming at once never get the same row,
 * together they get every due row once, and each claimed row comes back with the columns asked for.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { loadConfig } from '../../config';
import { connect } from '../../database/connect';
import type { ClaimRows, Dialect } from '../../database/dialects/dialect';
import { DIALECTS } from '../helpers/dialects';
import { ROOT } from '../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';

const TABLE = 'claim_probe';

for (const dialect of DIALECTS) {
  describe(`Dialect.claimRows [${dialect}]`, () => {
    let database: TestDatabase;
    let db: Knex;
    let sql: Dialect;

    before(async () => {
      database = await createTestDatabase(dialect);
      // poolMax 4: the workers below really run at once on PostgreSQL and MariaDB
      ({ db, dialect: sql } = connect(loadConfig({ ...database.env, IAM_JWT_SECRET: 'x'.repeat(32), NODE_ENV: 'test' }, ROOT).database, { poolMax: 4 }));
      await db.schema.createTable(TABLE, (t) => {
        t.increments('id');
        t.string('state').notNullable();
        t.string('owner');
        t.integer('weight').notNullable();
      });
    });
    after(async () => {
      await db?.destroy();
      await database?.drop();
    });
    beforeEach(async () => {
      await db(TABLE).del();
    });

    const claim = (owner: string, limit: number): ClaimRows => ({
      table: TABLE,
      set: { sql: `?? = 'taken', ?? = ?`, bindings: ['state', 'owner', owner] },
      candidates: { sql: `SELECT p.id FROM ?? p WHERE p.?? = ? ORDER BY p.id LIMIT ?`, bindings: [TABLE, 'state', 'due', limit] },
      columns: ['weight', 'owner'],
    });

    it('answers the claimed rows with their columns, in the limit, and leaves the others', async () => {
      await db(TABLE).insert([1, 2, 3, 4, 5].map((w) => ({ state: w === 2 ? 'done' : 'due', weight: w })));
      const rows = await sql.claimRows(db, claim('a', 2));
      const ids = (await db(TABLE).select('id').orderBy('id')).map((r) => Number(r.id));
      const answered = rows.map((r) => ({ id: Number(r.id), weight: Number(r.weight), owner: r.owner })).sort((x, y) => x.id - y.id);
      expect(answered).to.deep.equal([
        { id: ids[0], weight: 1, owner: 'a' },
        { id: ids[2], weight: 3, owner: 'a' },
      ]);
      const left = await db(TABLE).select('weight', 'state').orderBy('id');
      expect(left.map((r) => [Number(r.weight), r.state])).to.deep.equal([[1, 'taken'], [2, 'done'], [3, 'taken'], [4, 'due'], [5, 'due']]);
    });

    it('answers nothing (and writes nothing) when no row is due', async () => {
      await db(TABLE).insert({ state: 'done', weight: 1 });
      expect(await sql.claimRows(db, claim('a', 10))).to.deep.equal([]);
      expect((await db(TABLE).first('state'))?.state).to.equal('done');
    });

    it('workers claiming at once share the due rows without overlap', async () => {
      const n = 60;
      await db(TABLE).insert(Array.from({ length: n }, (_, i) => ({ state: 'due', weight: i })));
      const workers = ['w1', 'w2', 'w3', 'w4'];
      const got = new Map<string, number[]>(workers.map((w) => [w, []]));
      await Promise.all(
        workers.map(async (w) => {
          for (;;) {
            const rows = await sql.claimRows(db, claim(w, 4));
            if (rows.length === 0) {
              // a row another worker holds is skipped, not waited for: stop only when none is due any more
              const [{ due }] = (await db(TABLE).where('state', 'due').count({ due: '*' })) as { due: unknown }[];
              if (Number(due) === 0) return;
              continue;
            }
            got.get(w)!.push(...rows.map((r) => Number(r.id)));
            for (const r of rows) expect(r.owner).to.equal(w);
          }
        }),
      );
      const all = [...got.values()].flat();
      expect(all).to.have.length(n);
      expect(new Set(all).size).to.equal(n);
      // what each worker was answered is what the table says it owns
      const owned = await db(TABLE).select('id', 'owner');
      for (const r of owned) expect(got.get(String(r.owner))).to.include(Number(r.id));
    });
  });
}
