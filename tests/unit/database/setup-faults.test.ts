/**
 * The admin CLI's one line for a database that is not ready (admin-cli/failure.ts): the drivers' errors for a
 * missing table and a connection not made (database/dialects/setup-faults.ts), and what is left of anything else.
 */
import { expect } from 'chai';
import { cliFailure } from '../../../admin-cli/failure';
import { UsageError } from '../../../core/errors/usage-error';
import { isConnectFailure, missingTableOf } from '../../../database/dialects/setup-faults';

const err = (message: string, fields: Record<string, unknown> = {}): Error => Object.assign(new Error(message), fields);

describe('unit: database errors the admin CLI names in one line', () => {
  it('a missing table, as each driver words it', () => {
    expect(missingTableOf(err('select `name` from `roles` - SQLITE_ERROR: no such table: roles', { code: 'SQLITE_ERROR' }))).to.equal('roles');
    expect(missingTableOf(err('select "name" from "roles" - relation "roles" does not exist', { code: '42P01' }))).to.equal('roles');
    expect(missingTableOf(err("select `name` from `roles` - Table 't_1.roles' doesn't exist", { code: 'ER_NO_SUCH_TABLE', errno: 1146 }))).to.equal('t_1.roles');
    expect(missingTableOf(err('SQLITE_ERROR: no such column: x', { code: 'SQLITE_ERROR' }))).to.equal(null);
    expect(missingTableOf('no such table: roles')).to.equal(null);
  });

  it('a connection not made: network codes, refused credentials, unknown database, nested in an AggregateError', () => {
    for (const e of [err('connect ECONNREFUSED 127.0.0.1:1', { code: 'ECONNREFUSED' }), err('database "x" does not exist', { code: '3D000' }), err("Access denied for user 'x'", { errno: 1045 }), err('SQLITE_CANTOPEN: unable to open database file', { code: 'SQLITE_CANTOPEN' }), new AggregateError([err('connect ECONNREFUSED ::1:5432', { code: 'ECONNREFUSED' })], '')]) {
      expect(isConnectFailure(e), e.message).to.equal(true);
    }
    expect(isConnectFailure(err('duplicate key', { code: '23505' }))).to.equal(false);
  });

  it('the line and the exit code: 2 for refused input only; SQL cut away; an AggregateError named by its first error', () => {
    expect(cliFailure(new UsageError('no role x'), null)).to.deep.equal({ line: 'no role x', exitCode: 2 });
    expect(cliFailure(err('select 1 - SQLITE_ERROR: no such table: roles', { code: 'SQLITE_ERROR' }), null).line).to.equal('the database is not migrated (it has no table roles); run `admin-cli migrate:latest` first');
    expect(cliFailure(new AggregateError([err('connect ECONNREFUSED ::1:5432', { code: 'ECONNREFUSED' })], ''), null)).to.deep.equal({ line: 'cannot connect to the database (connect ECONNREFUSED ::1:5432)', exitCode: 1 });
    expect(cliFailure(err('insert into `x` (`a`) values (1) - something odd\n    at stack'), null)).to.deep.equal({ line: 'something odd', exitCode: 1 });
  });
});
