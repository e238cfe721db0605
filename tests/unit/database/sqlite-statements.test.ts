/** Kept prepared statements on a SQLite connection answer exactly as the plain `all` / `run` do. */
import { expect } from 'chai';
import knex, { type Knex } from 'knex';
import sqlite3 from 'sqlite3';
import { KEPT_SQL_MAX_CHARS, type StatementConnection, keepStatements } from '../../../database/dialects/sqlite-statements';

type Db = sqlite3.Database & StatementConnection;

interface Counted {
  readonly db: Db;
  readonly prepared: string[];
  finalized: number;
}

/** An in-memory database whose prepares and finalizes are counted, its statements kept (at most `max`). */
async function open(max?: number): Promise<Counted> {
  const db = new sqlite3.Database(':memory:') as Db;
  const counted: Counted = { db, prepared: [], finalized: 0 };
  const prepare = db.prepare.bind(db) as (sql: string, cb: (err: Error | null) => void) => sqlite3.Statement;
  (db as unknown as { prepare: unknown }).prepare = (sql: string, cb: (err: Error | null) => void): sqlite3.Statement => {
    counted.prepared.push(sql);
    const stmt = prepare(sql, cb);
    const finalize = stmt.finalize.bind(stmt);
    stmt.finalize = ((done?: (err: Error) => void) => {
      counted.finalized++;
      return finalize(done);
    }) as typeof stmt.finalize;
    return stmt;
  };
  await new Promise<void>((resolve, reject) => db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE)', (err) => (err ? reject(err) : resolve())));
  keepStatements(db, max);
  return counted;
}

function all(db: Db, sql: string, params: unknown[] = []): Promise<unknown[]> {
  return new Promise((resolve, reject) => db.all(sql, params, (err, rows) => (err ? reject(err) : resolve(rows))));
}

function run(db: Db, sql: string, params: unknown[] = []): Promise<{ lastID: number; changes: number }> {
  return new Promise((resolve, reject) =>
    db.run(sql, params, function ran(this: sqlite3.RunResult, err: Error | null) {
      if (err) reject(err);
      else resolve({ lastID: this.lastID, changes: this.changes });
    }),
  );
}

const close = (db: Db): Promise<void> => new Promise((resolve, reject) => db.close((err) => (err ? reject(err) : resolve())));

describe('SQLite kept statements', () => {
  it('prepares a SQL text once and answers each run with its own parameters', async () => {
    const { db, prepared } = await open();
    const insert = 'INSERT INTO t (name) VALUES (?)';
    expect(await run(db, insert, ['a'])).to.deep.equal({ lastID: 1, changes: 1 });
    expect(await run(db, insert, ['b'])).to.deep.equal({ lastID: 2, changes: 1 });
    const byName = 'SELECT id, name FROM t WHERE name = ?';
    expect(await all(db, byName, ['a'])).to.deep.equal([{ id: 1, name: 'a' }]);
    expect(await all(db, byName, ['b'])).to.deep.equal([{ id: 2, name: 'b' }]);
    expect(await all(db, byName, ['c'])).to.deep.equal([]);
    expect(await run(db, 'UPDATE t SET name = name || ?', ['!'])).to.deep.equal({ lastID: 2, changes: 2 });
    expect(prepared).to.deep.equal([insert, byName, 'UPDATE t SET name = name || ?']);
    await close(db);
  });

  it('hands each of two runs in flight at once the lastID of its own run', async () => {
    const { db, prepared } = await open();
    const insert = 'INSERT INTO t (name) VALUES (?)';
    await run(db, insert, ['warm']);
    const [a, b] = await Promise.all([run(db, insert, ['x']), run(db, insert, ['y'])]);
    expect([a.lastID, b.lastID]).to.deep.equal([2, 3]);
    expect(prepared).to.deep.equal([insert]);
    await close(db);
  });

  it('answers the error of a SQL text that does not prepare, and of a run that fails, then runs it anew', async () => {
    const { db, prepared } = await open();
    const unprepared = await all(db, 'SELECT nope FROM t').catch((e: Error) => e);
    expect(String(unprepared)).to.match(/no such column: nope/);
    const insert = 'INSERT INTO t (id, name) VALUES (?, ?)';
    await run(db, insert, [1, 'a']);
    const failed = await run(db, insert, [2, 'a']).catch((e: Error) => e);
    expect(String(failed)).to.match(/SQLITE_CONSTRAINT: UNIQUE constraint failed: t.name/);
    expect(await run(db, insert, [2, 'b'])).to.deep.equal({ lastID: 2, changes: 1 });
    // the failed run's statement was dropped: the text was prepared again
    expect(prepared.filter((s) => s === insert)).to.have.length(2);
    await close(db);
  });

  it('keeps at most `max` texts, finalizing the least recently used, and finalizes all on close', async () => {
    const c = await open(2);
    const q = (n: number): string => `SELECT ${n} AS n`;
    await all(c.db, q(1));
    await all(c.db, q(2));
    await all(c.db, q(1));
    expect(c.finalized).to.equal(0);
    await all(c.db, q(3));
    expect(c.finalized, 'q(2), the least recently used, dropped').to.equal(1);
    await all(c.db, q(1));
    expect(c.prepared).to.deep.equal([q(1), q(2), q(3)]);
    await all(c.db, q(2));
    expect(c.prepared).to.deep.equal([q(1), q(2), q(3), q(2)]);
    await close(c.db);
    expect(c.finalized, 'two dropped, two finalized at close').to.equal(4);
  });

  it(`runs SQL texts longer than ${KEPT_SQL_MAX_CHARS} characters the plain way`, async () => {
    const { db, prepared } = await open();
    const long = `SELECT 1 AS n /*${'x'.repeat(KEPT_SQL_MAX_CHARS)}*/`;
    expect(await all(db, long)).to.deep.equal([{ n: 1 }]);
    expect(prepared).to.deep.equal([]);
    await close(db);
  });

  it('commits after a failed statement in a transaction, and a kept COMMIT ends each transaction', async () => {
    const { db } = await open();
    for (let i = 0; i < 3; i++) {
      await run(db, 'BEGIN IMMEDIATE');
      await run(db, 'INSERT INTO t (name) VALUES (?)', [`n${i}`]);
      await all(db, 'SELECT * FROM t WHERE id > ?', [0]);
      await run(db, 'INSERT INTO t (name) VALUES (?)', [`n${i}`]).catch(() => undefined);
      await run(db, 'COMMIT');
    }
    expect(await all(db, 'SELECT name FROM t ORDER BY id')).to.deep.equal([{ name: 'n0' }, { name: 'n1' }, { name: 'n2' }]);
    await close(db);
  });

  it('serves knex (queries, inserts, a transaction, a rollback) on a file with kept statements', async () => {
    const db: Knex = knex({
      client: 'sqlite3',
      connection: { filename: ':memory:' },
      useNullAsDefault: true,
      pool: { min: 1, max: 1, afterCreate: (conn: Db, done: (e: Error | null, c: Db) => void) => (keepStatements(conn), done(null, conn)) },
    });
    try {
      await db.schema.createTable('k', (t) => {
        t.increments('id');
        t.string('name').unique();
      });
      expect(await db('k').insert({ name: 'a' })).to.deep.equal([1]);
      expect(await db('k').insert({ name: 'b' })).to.deep.equal([2]);
      expect(await db('k').insert({ name: 'c' }, ['id', 'name'])).to.deep.equal([{ id: 3, name: 'c' }]);
      expect(await db('k').where('id', '>', 1).update({ name: db.raw("name || '!'") })).to.equal(2);
      await db.transaction(async (trx) => {
        await trx('k').insert({ name: 'd' });
        await trx('k').where('name', 'a').del();
      });
      const failed = await db
        .transaction(async (trx) => {
          await trx('k').insert({ name: 'e' });
          await trx('k').insert({ name: 'e' });
        })
        .catch((e: Error) => e);
      expect(String(failed)).to.match(/UNIQUE constraint failed/);
      expect(await db('k').orderBy('id').pluck('name')).to.deep.equal(['b!', 'c!', 'd']);
    } finally {
      await db.destroy();
    }
  });
});
