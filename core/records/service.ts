/**
 * Business rules of the record endpoints. Every write call is atomic (bulk included): one transaction,
 * or, for a write one INSERT/UPDATE carries whole, that one statement. A failure anywhere changes nothing.
 */
import type { Knex } from 'knex';
import type { Dialect } from '../../database/dialects/dialect';
import { AppError } from '../errors/app-error';
import type { IncomingFile } from '../media/intake';
import { type MediaService, type PreparedFile, mediaFields } from '../media/service';
import { BadRequestError, ConflictError, NotFoundError, ValidationError } from '../errors/errors';
import type { Actor } from '../plugin-api';
import type { ListQuery } from '../query/ast';
import { type CheckedQuery } from '../query/checked';
import { checkListQuery } from '../query/check';
import type { CostBounds } from '../query/cost';
import { type CheckedGroupQuery, checkGroupedQuery } from '../query/check-group';
import { type ZoneNames, zoneNames } from '../query/group-vocabulary';
import { ATTRIBUTE_KINDS, toIsoTimestamp } from '../registry/attribute-kinds';
import { withFolds } from '../registry/fold';
import { type ContentType, NOT_DELETED, type Registry, type RelationAttribute } from '../registry/types';
import type { ModelValidators, WriteMode } from '../validation/compile';
import { translateDbError } from './db-errors';
import { type GroupedListResult, findGrouped } from './group-service';
import { RecordBudget } from './answer-budget';
import { serializeWithPopulate, withLinks } from './populate';
import * as repo from './repository';
import type { ApiRecord, Row } from './serializer';
import { type RelatedRows, WriteBack } from './write-back';

/** Largest array a bulk call takes. */
export const MAX_BULK_ITEMS = 1000;

export interface RecordServiceDeps {
  readonly db: Knex;
  readonly dialect: Dialect;
  readonly registry: Registry;
  readonly validators: ReadonlyMap<string, ModelValidators>;
  readonly hashPassword: (plain: string) => Promise<string>;
  readonly maxLimit: number;
  /** Children per parent of a to-many populate (POPULATE_DEFAULT_LIMIT, POPULATE_MAX_LIMIT; defaults in query/limits.ts). */
  readonly populateDefaultLimit?: number;
  readonly populateMaxLimit?: number;
  /** Records in one read answer, populated ones counted (ANSWER_MAX_RECORDS); unset: no bound. */
  readonly answerMaxRecords?: number;
  /** Query cost bounds (QUERY_MAX_RELATION_HOPS, QUERY_MAX_RELATION_SCOPES); limits.ts defaults when absent. */
  readonly cost?: CostBounds;
  readonly now?: () => Date;
  /** Media fields (issue 6); without it media fields are neither written nor resolved. */
  readonly media?: MediaService | null;
}

/**
 * Who writes, as the service needs it: the actor (createdBy / updatedBy) and the models the caller may not
 * `find` (the written model itself among them when the caller may not read it: no file links then). A write answer shows a related record of such a model as `{ id }` alone, and a bad reference to
 * one says only "invalid reference" (issue 13 item 3: what reads hide, writes must not show).
 */
export interface Caller {
  readonly actor: Actor | null;
  readonly unreadable: ReadonlySet<string>;
}

/** The 422 message for a reference into a model the caller may not read: nothing about which ids exist. */
export const INVALID_REFERENCE = 'invalid reference';

export interface ListResult {
  readonly records: ApiRecord[];
  readonly meta: { readonly totalRecords: number; readonly currentPage: number; readonly totalPages: number };
}

type UserSummary = Record<string, unknown> | null;

/** Spec 2.2: createdBy carries id, fullName, username, email; updatedBy id, fullName, email, active. */
/** The user a write is attributed to: none for an API token (it is no user account). */
function authorOf(actor: Actor | null): Actor | null {
  return actor && !actor.apiToken ? actor : null;
}
function createdBy(caller: Actor | null): UserSummary {
  const actor = authorOf(caller);
  return actor ? { id: actor.id, fullName: actor.fullName, username: actor.username, email: actor.email } : null;
}
function updatedBy(caller: Actor | null): UserSummary {
  const actor = authorOf(caller);
  return actor ? { id: actor.id, fullName: actor.fullName, email: actor.email, active: actor.active } : null;
}

/** Items of a bulk call fail with their index: `details.errors: [{index, fields}]`. */
function atIndex(err: unknown, index: number): never {
  const fields = err instanceof AppError ? ((err.details.fields as Record<string, string[]> | undefined) ?? {}) : {};
  if (err instanceof ValidationError) throw new ValidationError(`item ${index}: ${err.message}`, {}, { errors: [{ index, fields }] });
  if (err instanceof ConflictError) throw new ConflictError(`item ${index}: ${err.message}`, { errors: [{ index, fields }] });
  throw err;
}

export function parseIdList(body: unknown): number[] {
  if (!Array.isArray(body) || body.length === 0) throw new BadRequestError('the body must be a non-empty JSON array of record ids');
  if (body.length > MAX_BULK_ITEMS) throw new BadRequestError(`at most ${MAX_BULK_ITEMS} ids per call`);
  const ids = body.map((v, i) => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) throw new BadRequestError(`item ${i}: ${JSON.stringify(v)} is not a record id (a positive integer)`);
    return v;
  });
  if (new Set(ids).size !== ids.length) throw new BadRequestError('the id list names a record twice');
  return ids;
}

export class RecordService {
  private readonly now: () => Date;
  private readonly writeBack: WriteBack;

  constructor(private readonly deps: RecordServiceDeps) {
    this.now = deps.now ?? (() => new Date());
    this.writeBack = new WriteBack(deps.registry, deps.dialect);
  }

  check(model: ContentType, q: ListQuery): CheckedQuery {
    const { registry, maxLimit, populateDefaultLimit, populateMaxLimit } = this.deps;
    return checkListQuery(q, model, { registry, maxLimit, populateDefaultLimit, populateMaxLimit, cost: this.deps.cost });
  }

  /** One per read answer: counts its records against ANSWER_MAX_RECORDS. */
  private budget(): RecordBudget {
    return new RecordBudget(this.deps.answerMaxRecords ?? Number.POSITIVE_INFINITY);
  }

  async find(q: CheckedQuery): Promise<ListResult> {
    const { db, dialect } = this.deps;
    const { rows, total } = await this.run(q.model, () => repo.findPage(db, dialect, q));
    const records = await this.run(q.model, () => serializeWithPopulate(db, dialect, rows, q.select, q.populate, this.budget()));
    await this.run(q.model, async () => this.deps.media?.attach(db, q.model, rows, records, q.populateMedia));
    const currentPage = q.limit > 0 ? Math.floor(q.offset / q.limit) + 1 : 1;
    const totalPages = q.limit > 0 ? Math.ceil(total / q.limit) : 0;
    return { records, meta: { totalRecords: total, currentPage, totalPages } };
  }

  /** A Find with groupBy / aggregates (spec 4.5); see group-service.ts. */
  async checkGrouped(model: ContentType, q: ListQuery): Promise<CheckedGroupQuery> {
    const { registry, maxLimit, populateDefaultLimit, populateMaxLimit, cost } = this.deps;
    const zoned = q.group !== null && q.group.timezone !== null;
    return checkGroupedQuery(q, model, { registry, maxLimit, timeZones: zoned ? await this.timeZones() : null, populateDefaultLimit, populateMaxLimit, cost });
  }

  /** The database's zone names, read once (the first time a name is asked for); a failed read is retried. */
  private zones: Promise<ZoneNames | null> | null = null;
  private timeZones(): Promise<ZoneNames | null> {
    this.zones ??= this.deps.dialect.timeZones(this.deps.db).then(
      (names) => (names === null ? null : zoneNames(names)),
      (e: unknown) => {
        this.zones = null;
        throw e;
      },
    );
    return this.zones;
  }

  async findGrouped(q: CheckedGroupQuery): Promise<GroupedListResult> {
    return this.run(q.model, () => findGrouped(this.deps.db, this.deps.dialect, q, this.budget()));
  }

  async findOne(q: CheckedQuery, id: number): Promise<ApiRecord> {
    const { db, dialect } = this.deps;
    return this.run(q.model, async () => {
      const row = await repo.findById(db, dialect, q.model, id, q.softDelete, withLinks(q.select, q.populate));
      if (!row) throw new NotFoundError(`no ${q.model.name} with id ${id}`);
      const [record] = await serializeWithPopulate(db, dialect, [row], q.select, q.populate, this.budget());
      await this.deps.media?.attach(db, q.model, [row], [record], q.populateMedia);
      return record;
    });
  }

  /** `files`: the file parts of a multipart create (issue 6), still in their temporary files. */
  async create(model: ContentType, body: unknown, caller: Caller, files: readonly IncomingFile[] = []): Promise<ApiRecord> {
    const data = this.validators(model).check(body, 'create');
    const prepared = await this.prepareFiles(model, files);
    const by = { createdBy: createdBy(caller.actor), updatedBy: updatedBy(caller.actor) };
    if (this.isSingleStatement(model, data, 'create', prepared)) {
      const { db } = this.deps;
      return this.run(model, async () => ({ ...(await this.insert(db, model, data, caller)).record, ...by }));
    }
    return this.withFiles(model, prepared, async (trx) => {
      const { id, record } = await this.insert(trx, model, data, caller, prepared);
      return this.withMedia(trx, model, id, { ...record, ...by }, data, prepared, caller);
    });
  }

  async createMany(model: ContentType, body: unknown, caller: Caller): Promise<ApiRecord[]> {
    const { actor } = caller;
    if (!Array.isArray(body) || body.length === 0) throw new BadRequestError('the body must be a non-empty JSON array of records');
    if (body.length > MAX_BULK_ITEMS) throw new BadRequestError(`at most ${MAX_BULK_ITEMS} records per bulk call`);
    const v = this.validators(model);
    const errors = body.flatMap((item, index) => {
      const fields = v.errors(item, 'create');
      return fields ? [{ index, fields }] : [];
    });
    if (errors.length > 0) throw new ValidationError(`invalid ${model.name} records at ${errors.map((e) => e.index).join(', ')}`, {}, { errors });
    const items = body.map((item) => v.check(item, 'create'));
    return this.transaction(model, async (trx) => {
      const out: ApiRecord[] = [];
      for (const [index, data] of items.entries()) {
        try {
          out.push({ ...(await this.insert(trx, model, data, caller)).record, createdBy: createdBy(actor), updatedBy: updatedBy(actor) });
        } catch (e) {
          atIndex(this.translated(e, model), index);
        }
      }
      return out;
    });
  }

  async update(model: ContentType, id: number, body: unknown, mode: Exclude<WriteMode, 'create'>, caller: Caller, files: readonly IncomingFile[] = []): Promise<ApiRecord> {
    const { actor, unreadable } = caller;
    const data = this.validators(model).check(body, mode);
    const prepared = await this.prepareFiles(model, files);
    const stamp = (row: Row): Row => Object.assign(row, { updated_at: toIsoTimestamp(this.now()), updated_by_id: authorOf(actor)?.id ?? null });
    if (this.isSingleStatement(model, data, mode, prepared)) {
      const { db } = this.deps;
      return this.run(model, async () => {
        const { row, related } = await this.toRow(db, model, data, mode, unreadable);
        const updated = await repo.updateActiveReturning(db, model, id, stamp(row), this.writeBack.columns(model));
        if (!updated) throw new NotFoundError(`no ${model.name} with id ${id}`);
        return { ...(await this.writeBack.present(db, model, updated, unreadable, related)), updatedBy: updatedBy(actor) };
      });
    }
    return this.withFiles(model, prepared, async (trx, obsolete) => {
      await this.mustExist(trx, model, id, 'active');
      const { row, links } = await this.toRow(trx, model, data, mode, unreadable);
      await repo.updateRow(trx, model, id, stamp(row));
      for (const [rel, ids] of links) await repo.setLinks(trx, rel, id, ids);
      if (this.deps.media) obsolete.push(...(await this.deps.media.write(trx, model, id, data, prepared, false)));
      const record = { ...(await this.writeBack.read(trx, model, id, 'active', unreadable)), updatedBy: updatedBy(actor) };
      return this.withMedia(trx, model, id, record, data, prepared, caller);
    });
  }

  async remove(model: ContentType, id: number, caller: Caller): Promise<ApiRecord> {
    return this.withFiles(model, [], async (trx, obsolete) => this.removeOne(trx, model, id, caller, obsolete));
  }

  async removeMany(model: ContentType, body: unknown, caller: Caller): Promise<ApiRecord[]> {
    return this.eachId(model, body, 'active', (trx, id, obsolete) => this.removeOne(trx, model, id, caller, obsolete));
  }

  async recover(model: ContentType, id: number, caller: Caller): Promise<ApiRecord> {
    return this.transaction(model, async (trx) => this.recoverOne(trx, model, id, caller));
  }

  async recoverMany(model: ContentType, body: unknown, caller: Caller): Promise<ApiRecord[]> {
    return this.eachId(model, body, 'exclusive', (trx, id) => this.recoverOne(trx, model, id, caller));
  }

  // ---- internals ----

  private validators(model: ContentType): ModelValidators {
    const v = this.deps.validators.get(model.name);
    if (!v) throw new Error(`no validators for ${model.name}`);
    return v;
  }

  private translated(err: unknown, model: ContentType): unknown {
    try {
      translateDbError(err, this.deps.dialect, model);
    } catch (e) {
      return e;
    }
  }

  private async run<T>(model: ContentType, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      return translateDbError(e, this.deps.dialect, model);
    }
  }

  private async transaction<T>(model: ContentType, fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return this.run(model, () => this.deps.db.transaction(fn));
  }

  private async prepareFiles(model: ContentType, files: readonly IncomingFile[]): Promise<PreparedFile[]> {
    if (files.length === 0) return [];
    if (!this.deps.media) throw new BadRequestError('this service takes no files');
    return this.deps.media.prepare(model, files);
  }

  /**
   * A write transaction that may bring or drop files: files it brought are deleted when it fails (nothing
   * left behind), files it dropped (`obsolete`) only once it has committed.
   */
  private async withFiles<T>(model: ContentType, prepared: readonly PreparedFile[], fn: (trx: Knex.Transaction, obsolete: string[]) => Promise<T>): Promise<T> {
    const obsolete: string[] = [];
    let out: T;
    try {
      out = await this.transaction(model, (trx) => fn(trx, obsolete));
    } catch (e) {
      await this.deps.media?.deleteKeys(prepared.map((p) => p.key));
      throw e;
    }
    // After the commit: the answer never waits for (or fails on) the storage; deletes retry in the background.
    void this.deps.media?.deleteKeys(obsolete);
    return out;
  }

  /**
   * A write that touched media answers the record with `_media` of every media field; file links only
   * for a caller who may `find` the model (a presigned URL is a read of the file).
   */
  private async withMedia(trx: Knex.Transaction, model: ContentType, id: number, record: ApiRecord, data: Record<string, unknown>, prepared: readonly PreparedFile[], caller: Caller): Promise<ApiRecord> {
    const fields = mediaFields(model);
    if (!this.deps.media || (prepared.length === 0 && !fields.some((f) => f.name in data))) return record;
    await this.deps.media.attach(trx, model, [{ id }], [record], fields, { urls: !caller.unreadable.has(model.name) });
    return record;
  }

  private async mustExist(trx: Knex.Transaction, model: ContentType, id: number, scope: 'active' | 'exclusive'): Promise<Row> {
    const row = await repo.findById(trx, this.deps.dialect, model, id, scope, [{ name: 'id', column: 'id', type: 'integer' }], true);
    if (!row) throw new NotFoundError(scope === 'active' ? `no ${model.name} with id ${id}` : `no archived ${model.name} with id ${id}`);
    return row;
  }

  /** A bulk call over ids: every id must exist in `scope` first, then all in one transaction. */
  private async eachId(model: ContentType, body: unknown, scope: 'active' | 'exclusive', fn: (trx: Knex.Transaction, id: number, obsolete: string[]) => Promise<ApiRecord>): Promise<ApiRecord[]> {
    const ids = parseIdList(body);
    return this.withFiles(model, [], async (trx, obsolete) => {
      await this.allExist(trx, model, ids, scope);
      const out: ApiRecord[] = [];
      for (const id of ids) out.push(await fn(trx, id, obsolete));
      return out;
    });
  }

  private async allExist(trx: Knex.Transaction, model: ContentType, ids: readonly number[], scope: 'active' | 'exclusive'): Promise<void> {
    const found = await repo.activeIds(trx, model, ids, scope);
    const missing = ids.filter((i) => !found.has(i));
    if (missing.length > 0) {
      throw new NotFoundError(`no ${scope === 'exclusive' ? 'archived ' : ''}${model.name} with id ${missing.join(', ')}`, { missingIds: missing });
    }
  }

  /**
   * A write that one INSERT or UPDATE carries whole (no join-table links, no media, no files) needs no
   * transaction: the relation checks before it only read, and the statement is atomic by itself.
   */
  private isSingleStatement(model: ContentType, data: Record<string, unknown>, mode: WriteMode, prepared: readonly PreparedFile[]): boolean {
    if (prepared.length > 0 || mediaFields(model).some((f) => f.name in data)) return false;
    return !model.attributes.some((a) => a.kind === 'relation' && a.owner && a.joinTable && (a.name in data || mode === 'put'));
  }

  /** Inserts one record (its links and media too): the record as the write answers it. */
  private async insert(db: repo.Db, model: ContentType, data: Record<string, unknown>, caller: Caller, prepared: readonly PreparedFile[] = []): Promise<{ id: number; record: ApiRecord }> {
    const { actor, unreadable } = caller;
    const { row, links, related } = await this.toRow(db, model, data, 'create', unreadable);
    const now = toIsoTimestamp(this.now());
    Object.assign(row, { created_at: now, updated_at: now, deleted_tracker: NOT_DELETED, created_by_id: authorOf(actor)?.id ?? null, updated_by_id: authorOf(actor)?.id ?? null });
    const inserted = await repo.insertReturning(db, model, row, this.writeBack.columns(model));
    const id = Number(inserted.id);
    for (const [rel, ids] of links) await repo.setLinks(db, rel, id, ids);
    await this.deps.media?.write(db, model, id, data, prepared, true); // a new record has nothing to drop
    return { id, record: await this.writeBack.present(db, model, inserted, unreadable, related) };
  }

  /**
   * Validated body → column values (defaults, hashing, relation resolution) and many-to-many links.
   * `unreadable`: models the caller may not `find`; a bad reference to one says only "invalid reference".
   */
  private async toRow(trx: repo.Db, model: ContentType, data: Record<string, unknown>, mode: WriteMode, unreadable: ReadonlySet<string>): Promise<{ row: Row; links: [RelationAttribute, number[]][]; related: RelatedRows }> {
    const row: Row = {};
    const related: RelatedRows = new Map();
    const links: [RelationAttribute, number[]][] = [];
    const fieldErrors: Record<string, string[]> = {};
    for (const a of model.attributes) {
      // server-only attributes: a create gives them their default, a PUT leaves them as the server set them
      if (a.writable === false && mode !== 'create') continue;
      if (a.kind === 'scalar') {
        if (a.name in data) {
          const v = data[a.name];
          row[a.column] = v === null ? null : a.type === 'password' ? await this.deps.hashPassword(String(v)) : ATTRIBUTE_KINDS[a.type].toDb(v);
        } else if (mode !== 'patch') {
          row[a.column] = a.default === undefined ? null : ATTRIBUTE_KINDS[a.type].toDb(a.default);
        }
      } else if (a.kind === 'relation' && a.owner && !a.private) {
        if (a.column && a.idField) {
          const resolved = await this.resolveToOne(trx, model, a, data, fieldErrors, related, unreadable.has(a.target));
          if (resolved !== undefined) row[a.column] = resolved;
          else if (mode !== 'patch') row[a.column] = null;
        } else if (a.joinTable && a.name in data) {
          const ids = data[a.name] as number[];
          const target = this.target(a);
          const found = await repo.activeIds(trx, target, ids);
          const missing = ids.filter((i) => !found.has(i));
          if (missing.length > 0) fieldErrors[a.name] = [unreadable.has(target.name) ? INVALID_REFERENCE : `no ${target.name} with id ${missing.join(', ')}`];
          links.push([a, ids]);
        } else if (a.joinTable && mode === 'put') {
          links.push([a, []]);
        }
      }
    }
    if (Object.keys(fieldErrors).length > 0) throw new ValidationError(`invalid ${model.name}`, fieldErrors);
    return { row: withFolds(model, row), links, related };
  }

  private target(a: RelationAttribute): ContentType {
    const t = this.deps.registry.get(a.target);
    if (!t) throw new Error(`registry: ${a.target} missing`);
    return t;
  }

  /**
   * `instituteId` and/or `instituteUserKey` → the id of an active related record (undefined: not given).
   * The check by id loads what the write's answer shows of that record into `related`. `hidden`: the
   * caller may not `find` the target, so a failure names no id or key (the same "invalid reference").
   */
  private async resolveToOne(trx: repo.Db, model: ContentType, a: RelationAttribute, data: Record<string, unknown>, errors: Record<string, string[]>, related: RelatedRows, hidden: boolean): Promise<number | null | undefined> {
    const idField = a.idField as string;
    const target = this.target(a);
    const byId = data[idField];
    const byKey = a.userKeyField ? data[a.userKeyField] : undefined;
    let fromKey: number | undefined;
    if (byKey !== undefined && a.userKeyField && target.userKey) {
      const keyAttr = target.byName.get(target.userKey);
      const column = keyAttr?.kind === 'scalar' ? keyAttr.column : target.userKey;
      fromKey = await repo.idByColumn(trx, target, column, byKey);
      if (fromKey === undefined) {
        errors[a.userKeyField] = [hidden ? INVALID_REFERENCE : `no ${target.name} with ${target.userKey} ${JSON.stringify(byKey)}`];
        return undefined;
      }
    }
    if (byId === undefined) return fromKey;
    if (byId === null) {
      if (fromKey !== undefined) errors[idField] = [`contradicts ${a.userKeyField}`];
      related.set(a.name, null);
      return null;
    }
    const id = byId as number;
    if (fromKey !== undefined && fromKey !== id) {
      errors[idField] = [hidden ? `contradicts ${a.userKeyField}` : `names ${target.name} ${id} but ${a.userKeyField} names ${fromKey}`];
      return undefined;
    }
    if (fromKey === undefined) {
      const found = await repo.findById(trx, this.deps.dialect, target, id, 'active', this.writeBack.relatedFields(model, a.name));
      if (!found) {
        errors[idField] = [hidden ? INVALID_REFERENCE : `no ${target.name} with id ${id}`];
        return undefined;
      }
      related.set(a.name, found);
    }
    return id;
  }

  private async removeOne(trx: Knex.Transaction, model: ContentType, id: number, caller: Caller, obsolete: string[]): Promise<ApiRecord> {
    const { actor, unreadable } = caller;
    await this.mustExist(trx, model, id, 'active');
    if (!model.softDelete) {
      // A model without soft delete loses the row for good; the answer shows it as it was.
      const before = await this.writeBack.read(trx, model, id, 'active', unreadable);
      // Its files go too (after commit); a soft-deleted record keeps them for a recover.
      if (this.deps.media) obsolete.push(...(await this.deps.media.removeForRecord(trx, model, id)));
      try {
        await repo.deleteRow(trx, model, id);
      } catch (e) {
        // A foreign-key failure on delete means other records still point here (SQLite does not say which).
        if (this.deps.dialect.classifyError(e)?.kind === 'foreignKey') throw new ConflictError(`${model.name} ${id} is still referenced by other records`);
        throw e;
      }
      return { ...before, updatedBy: updatedBy(actor) };
    }
    const now = toIsoTimestamp(this.now());
    // The tracker is unique per archived record, so two archived records may share a unique value (spec 3.1 rule 2).
    await repo.updateRow(trx, model, id, { deleted_at: now, deleted_tracker: `${now} #${id}`, updated_at: now, updated_by_id: authorOf(actor)?.id ?? null });
    return { ...(await this.writeBack.read(trx, model, id, 'inclusive', unreadable)), updatedBy: updatedBy(actor) };
  }

  private async recoverOne(trx: Knex.Transaction, model: ContentType, id: number, caller: Caller): Promise<ApiRecord> {
    const { actor, unreadable } = caller;
    await this.mustExist(trx, model, id, 'exclusive');
    try {
      await repo.updateRow(trx, model, id, { deleted_at: null, deleted_tracker: NOT_DELETED, updated_at: toIsoTimestamp(this.now()), updated_by_id: authorOf(actor)?.id ?? null });
    } catch (e) {
      const err = this.translated(e, model);
      if (err instanceof ConflictError) {
        // spec 3.1: recovering into a taken unique value is a conflict; the record stays archived.
        throw new ConflictError(`cannot recover ${model.name} ${id}: an active record already holds its unique value`, err.details);
      }
      throw err instanceof AppError ? err : e;
    }
    return { ...(await this.writeBack.read(trx, model, id, 'active', unreadable)), updatedBy: updatedBy(actor) };
  }
}
