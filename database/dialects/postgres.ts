import type { Knex } from 'knex';
import { type Dialect, type DbFault, likePattern } from './dialect';
import { postgresDates } from './postgres-dates';

interface PgError {
  code?: string;
  table?: string;
  column?: string;
  constraint?: string;
  detail?: string;
}

/** `Key (fee_type, deleted_tracker)=(x, not-deleted) already exists.` → columns. */
function detailColumns(detail: string | undefined): string[] {
  const m = /^Key \(([^)]+)\)/.exec(detail ?? '');
  return m ? m[1].split(',').map((s) => s.trim().replace(/^"|"$/g, '')) : [];
}

const UNAVAILABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004', '53300']);

export const postgresDialect: Dialect = {
  ...postgresDates,
  rowLocks: true,
  name: 'postgres',

  like(column, value, { caseInsensitive, mode }) {
    return { sql: `?? ${caseInsensitive ? 'ILIKE' : 'LIKE'} ? ESCAPE '\\'`, bindings: [column, likePattern(value, mode)] };
  },

  byteOrdered(column) {
    // The database's default collation (en_US.UTF-8 and the like) orders `a` before `B`; "C" orders bytes as SQLite does.
    return { sql: '?? COLLATE "C"', bindings: [column] };
  },

  classifyError(err): DbFault | null {
    if (typeof err !== 'object' || err === null) return null;
    const e = err as PgError;
    const message = err instanceof Error ? err.message : '';
    switch (e.code) {
      case '23505':
        return { kind: 'unique', table: e.table ?? null, columns: detailColumns(e.detail) };
      case '23503':
        return { kind: 'foreignKey', table: e.table ?? null, columns: detailColumns(e.detail) };
      case '23502':
        return { kind: 'notNull', table: e.table ?? null, columns: e.column ? [e.column] : [] };
      case '22P02':
      case '22003':
      case '22007':
      case '22008':
      case '22001':
      case '22021':
        return { kind: 'invalidValue', message: message.replace(/^.* - /, '') };
    }
    if (e.code && UNAVAILABLE.has(e.code)) return { kind: 'unavailable', message: 'the database is unavailable' };
    if (/Knex: Timeout acquiring a connection|Connection terminated/.test(message)) return { kind: 'unavailable', message: 'the database is unavailable' };
    return null;
  },

  async listTables(db: Knex) {
    const rows: { table_name: string }[] = await db('information_schema.tables')
      .select('table_name')
      .whereRaw('table_schema = current_schema()')
      .andWhere('table_type', 'BASE TABLE');
    return rows.map((r) => r.table_name);
  },
};
