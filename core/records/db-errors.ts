/** A classified driver fault → the AppError the contract chooses, with field names instead of columns. */
import type { DbFault, Dialect } from '../../database/dialects/dialect';
import { AppError } from '../errors/app-error';
import { ConflictError, QueryTimeoutError, ServiceBusyError, ServiceUnavailableError, ValidationError, WriteConflictError } from '../errors/errors';
import type { ContentType } from '../registry/types';

function fieldOf(model: ContentType, column: string): string {
  for (const a of model.attributes) {
    // a server-kept key (YAML keyOf) is answered as the field it is derived from
    if (a.kind === 'scalar' && a.column === column) return a.keyOf ?? a.name;
    if (a.kind === 'relation' && a.column === column) return a.idField ?? a.name;
  }
  return column;
}

/**
 * A data error the checks before SQL missed: our words for the client, never the driver's text (it
 * names types and encodings); the driver error rides along as `cause`, and error-mapper.ts logs it.
 */
export function invalidValue(message: string, cause: unknown): ValidationError {
  const e = new ValidationError(message, { _body: ['a value is outside what its column can store'] });
  e.cause = cause;
  return e;
}

/** Re-throws `err` as an AppError when the dialect recognises it; otherwise re-throws it unchanged. */
export function translateDbError(err: unknown, dialect: Dialect, model: ContentType): never {
  if (err instanceof AppError) throw err;
  const fault = dialect.classifyError(err);
  if (!fault) throw err;
  switch (fault.kind) {
    case 'unique': {
      const fields = fault.columns.filter((c) => c !== 'deleted_tracker' && c !== 'locale_name').map((c) => fieldOf(model, c));
      const named = fields.length ? fields : ['record'];
      // issue 14: on i18n models unique values are unique per locale
      const where = model.i18n ? ' in this locale' : '';
      throw new ConflictError(`${model.name}: ${named.join(', ')} already taken by another record${where}`, {
        fields: Object.fromEntries(named.map((f) => [f, ['is already taken']])),
      });
    }
    case 'foreignKey':
      if (fault.table !== null && fault.table !== model.table) {
        throw new ConflictError(`${model.name}: the record is still referenced by ${fault.table} records`, { referencedBy: fault.table });
      }
      throw new ValidationError(`${model.name}: a related record does not exist`, Object.fromEntries((fault.columns.length ? fault.columns : ['relation']).map((c) => [fieldOf(model, c), ['names no existing record']])));
    case 'notNull':
      throw new ValidationError(`${model.name}: a required value is missing`, Object.fromEntries(fault.columns.map((c) => [fieldOf(model, c), ['is required']])));
    case 'invalidValue':
      throw invalidValue(`${model.name}: the database cannot store a value of this record`, err);
    case 'unavailable':
    case 'busy':
    case 'writeConflict':
    case 'timeout':
      throw stateFaultError(fault);
  }
}

/** The faults of the database's state rather than of the record's values: they name no field. */
const STATE_FAULT_KINDS = ['unavailable', 'busy', 'writeConflict', 'timeout'] as const;
type StateFault = Extract<DbFault, { kind: (typeof STATE_FAULT_KINDS)[number] }>;

export function isStateFault(fault: DbFault | null): fault is StateFault {
  return fault !== null && (STATE_FAULT_KINDS as readonly string[]).includes(fault.kind);
}

/**
 * The answer to a fault of the database's state: the same for the record service and for a driver error
 * that reaches the error mapper (core/http/error-mapper.ts).
 */
export function stateFaultError(fault: StateFault): AppError {
  switch (fault.kind) {
    case 'unavailable':
      return new ServiceUnavailableError('the database is unavailable; try again shortly');
    case 'busy':
      return new ServiceBusyError(fault.poolMax);
    case 'writeConflict':
      // 503 + Retry-After like an outage answer, but its own name: the database is fine, the write may be sent again.
      return new WriteConflictError(fault.reason);
    case 'timeout':
      // 504, not 503: the query is too costly; the database is fine.
      return new QueryTimeoutError();
  }
}
