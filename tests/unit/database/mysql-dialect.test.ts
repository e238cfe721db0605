/** The MariaDB/MySQL dialect's pure parts: error classification, TIME text, date-bucket SQL. */
import { expect } from 'chai';
import knex from 'knex';
import { mysqlDialect, duplicateKeyName } from '../../../database/dialects/mysql';
import { MysqlClient } from '../../../database/dialects/mysql-client';
import { canonicalTimeText, mysqlConnection } from '../../../database/dialects/mysql-connect';

const err = (o: Record<string, unknown>): Error => Object.assign(new Error(String(o.sqlMessage ?? 'x')), o);

describe('mysql dialect (pure)', () => {
  it('classifies unique, foreign key, not-null, data, timeout, write-conflict and outage errors', () => {
    const dup = err({ errno: 1062, sqlState: '23000', sqlMessage: "Duplicate entry 'A-not-deleted' for key 'institute_code_deleted_tracker_unique'", keyTable: 'institute', keyColumns: ['code', 'deleted_tracker'] });
    expect(mysqlDialect.classifyError(dup)).to.deep.equal({ kind: 'unique', table: 'institute', columns: ['code', 'deleted_tracker'] });
    expect(duplicateKeyName("Duplicate entry 'x' for key 'fee_type.fee_type_fee_type_unique'")).to.equal('fee_type_fee_type_unique');
    const parent = err({ errno: 1451, sqlMessage: 'Cannot delete or update a parent row: a foreign key constraint fails (`t_1`.`fee_type`, CONSTRAINT `fee_type_institute_id_foreign` FOREIGN KEY (`institute_id`) REFERENCES `institute` (`id`))' });
    expect(mysqlDialect.classifyError(parent)).to.deep.equal({ kind: 'foreignKey', table: 'fee_type', columns: ['institute_id'] });
    expect(mysqlDialect.classifyError(err({ errno: 1048, sqlMessage: "Column 'name' cannot be null" }))).to.deep.equal({ kind: 'notNull', table: null, columns: ['name'] });
    expect(mysqlDialect.classifyError(err({ errno: 1406, sqlState: '22001', code: 'ER_DATA_TOO_LONG', sqlMessage: 'Data too long' }))).to.include({ kind: 'invalidValue' });
    expect(mysqlDialect.classifyError(err({ errno: 4025, sqlState: '23000', sqlMessage: 'CONSTRAINT `x` failed' }))).to.include({ kind: 'invalidValue' });
    expect(mysqlDialect.classifyError(err({ errno: 1969, sqlState: '70100', sqlMessage: 'Query execution was interrupted (max_statement_time exceeded)' }))).to.deep.equal({ kind: 'timeout' });
    for (const e of [err({ code: 'ECONNREFUSED' }), err({ code: 'PROTOCOL_CONNECTION_LOST', fatal: true }), err({ errno: 1053 }), Object.assign(new Error('t'), { name: 'KnexTimeoutError' })]) {
      expect(mysqlDialect.classifyError(e)).to.deep.equal({ kind: 'unavailable', message: 'the database is unavailable' });
    }
    // a deadlock or a lock wait past its limit: the transaction was rolled back, the database is fine (→ 503 WriteConflictError)
    expect(mysqlDialect.classifyError(err({ errno: 1213, code: 'ER_LOCK_DEADLOCK', sqlState: '40001' }))).to.deep.equal({ kind: 'writeConflict', reason: 'deadlock' });
    expect(mysqlDialect.classifyError(err({ errno: 1205, code: 'ER_LOCK_WAIT_TIMEOUT', sqlState: 'HY000' }))).to.deep.equal({ kind: 'writeConflict', reason: 'lockTimeout' });
    expect(mysqlDialect.classifyError(err({ errno: 1146, sqlState: '42S02', sqlMessage: "Table 'x' doesn't exist" }))).to.equal(null);
  });

  it('reads TIME as PostgreSQL prints it, and the URL into mysql2 options', () => {
    expect(canonicalTimeText('09:30:00.000000')).to.equal('09:30:00');
    expect(canonicalTimeText('09:30:00.500000')).to.equal('09:30:00.5');
    expect(canonicalTimeText('23:59:59')).to.equal('23:59:59');
    expect(mysqlConnection('mysql://a%40b:p%2Fw@db.example:3307/app')).to.deep.equal({ host: 'db.example', port: 3307, user: 'a@b', password: 'p/w', database: 'app' });
  });

  it('writes ASC/DESC without NULLS clauses and LIKE with escaped wildcards', () => {
    expect(mysqlDialect.sortDirection('asc')).to.equal('ASC');
    expect(mysqlDialect.like('c', '50%_\\', { caseInsensitive: false, mode: 'contains' })).to.deep.equal({ sql: '?? LIKE ?', bindings: ['c', '%50\\%\\_\\\\%'] });
  });

  it('creates tables utf8mb4 with a binary NO PAD collation, ids signed, instants as 24-character text, long strings as longtext', () => {
    const db = knex({ client: MysqlClient });
    const sql = db.schema
      .createTable('t', (t) => {
        t.increments('id').primary();
        t.timestamp('at', { useTz: true, precision: 3 }).notNullable();
        t.text('body').defaultTo('x');
        t.time('clock');
        t.string('short', 768);
        t.string('long', 769).defaultTo('y');
        t.integer('other_id').references('id').inTable('t');
      })
      .toString();
    expect(sql).to.contain('`id` int not null auto_increment primary key');
    expect(sql).to.contain('`at` varchar(24) not null');
    expect(sql).to.contain("`body` longtext default 'x'");
    expect(sql).to.contain('`clock` time(6)');
    // MariaDB's varchar holds 16383 characters, a row's varchars 65535 bytes: a longer string is longtext
    expect(sql).to.contain('`short` varchar(768)');
    expect(sql).to.contain("`long` longtext default 'y'");
    expect(sql).to.match(/default character set utf8mb4 collate utf8mb4_nopad_bin/);
  });

  it('binds a JS Date as the ISO text instants are stored as', () => {
    const db = knex({ client: MysqlClient });
    const at = new Date(Date.UTC(2026, 2, 31, 9, 30, 0, 5));
    // knex passes every statement's bindings through prepBindings before the driver sees them
    const client = db.client as unknown as { prepBindings(b: unknown[]): unknown[] };
    expect(client.prepBindings([at, 1, 'x'])).to.deep.equal(['2026-03-31T09:30:00.005Z', 1, 'x']);
  });
});
