/** Everything that differs between SQLite and PostgreSQL, behind one interface (DESIGN habit 7). */
import type { Knex } from 'knex';

/** A driver error, classified; records/db-errors.ts turns it into an AppError with field names. */
export type DbFault =
  | { readonly kind: 'unique'; readonly table: string | null; readonly columns: readonly string[] }
  | { readonly kind: 'foreignKey'; readonly table: string | null; readonly columns: readonly string[] }
  | { readonly kind: 'notNull'; readonly table: string | null; readonly columns: readonly string[] }
  | { readonly kind: 'invalidValue'; readonly message: string }
  | { readonly kind: 'unavailable'; readonly message: string };

export interface LikeOptions {
  readonly caseInsensitive: boolean;
  readonly negate: boolean;
  readonly mode: 'contains' | 'startsWith' | 'endsWith';
}

/** A SQL fragment with `??` identifier and `?` value placeholders. */
export interface SqlFragment {
  readonly sql: string;
  readonly bindings: readonly unknown[];
}

export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /** SELECT … FOR UPDATE is meaningful (SQLite serializes writers anyway). */
  readonly rowLocks: boolean;
  /** `column` matches `value` as plain text (`%`, `_`, `\` match themselves); never NULL for a non-null column. */
  like(column: string, value: string, opts: Omit<LikeOptions, 'negate'>): SqlFragment;
  /** Classifies a driver error, or null when it is none of ours to explain. */
  classifyError(err: unknown): DbFault | null;
  /** The tables of the current database / schema. */
  listTables(db: Knex): Promise<string[]>;
}

/** `%`, `_` and `\` escaped for a LIKE pattern with `ESCAPE '\'`. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export function likePattern(value: string, mode: LikeOptions['mode']): string {
  const v = escapeLike(value);
  return mode === 'contains' ? `%${v}%` : mode === 'startsWith' ? `${v}%` : `%${v}`;
}
