/**
 * Business rules of the record endpoints. Every write call is atomic (bulk included): one transaction,
 * or, for a write one INSERT/UPDATE carries whole, that one statement. A failure anywhere changes nothing.
 */
import type { Knex } from 'knex';
import type { Dialect } from '../../database/dialects/dialect';
import { AppError } from '../errors/app-error';
import type { IncomingFile } from '../media/intake';
import { type MediaService, type PreparedFile, mediaFields } from '../media/service';
import { AnswerTooLargeError, BadRequestError, ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors/errors';
import type { Actor } from '../plugin-api';
import { emptyListQuery, type ListQuery, type SoftDeleteScope } from '../query/ast';
import type { CheckedFilter, CheckedQuery } from '../query/checked';
import { type RowScope, checkListQuery } from '../query/check';
import type { CostBounds } from '../query/cost';
import { type CheckedGroupQuery, checkGroupedQuery } from '../query/check-group';
import { type ZoneNames, zoneNames } from '../query/group-vocabulary';
import { ATTRIBUTE_KINDS, toIsoTimestamp } from '../registry/attribute-kinds';
import { withFolds } from '../registry/fold';
import { type ContentType, NOT_DELETED, type Registry, type RelationAttribute } from '../registry/types';
import type { ModelValidators, WriteMode } from '../validation/compile';
import { translateDbError } from './db-errors';
import { mergedItemFields } from '../validation/bulk-fields';
import { lockEntries } from './entry-lock';
import { type LocaleTargets, deleteTargets, recoverTargets } from './locale-targets';
import { type GroupedListResult, findGrouped } from './group-service';
import { RecordBudget, textChars } from './answer-budget';
import { firstPageRows, nextPageRows, serializeWithPopulate, withLinks } from './populate';
import * as repo from './repository';
import * as loc from './locales';
import type { LocaleSettings } from '../../config/locales';
import type { ApiRecord, Row } from './serializer';
import { type RelatedRows, WriteBack } from './write-back';
import type { EventPipeline } from '../events/pipeline';
import { HookError } from '../hooks/error';
import type { HookRunner } from '../hooks/runner';
import { FIND_ONE_PARAMS, parseListQuery } from '../query/parse';
import { type Write, WriteEffects } from './write-effects';
import { CascadeEvents } from './cascade-events';

import { annotate, annotatePopulated, versionRead } from '../drafts/annotate';
import { hasCopy, inSync, linksToCopy, mirrorSoftDelete, publishedLinks, removeCopy, workingRow, writeCopy } from '../drafts/copies';
import { relationIdsDetails } from '../validation/relation-ids';
import { checkLinks, DEFAULT_WRITE_MAX_LINKS, linksOf, MAX_BULK_IDS, MAX_BULK_ITEMS, tooManyIds, tooManyItems } from './write-limits';
import { type Version, hasDrafts } from '../drafts/names';
import { publishedView } from '../drafts/view';
import { otherPublishedLocales, refuseOrphanedCopies, refuseWithoutPublishedEntry, shareToCopies } from '../drafts/localized';
import { publishPlan } from '../drafts/publish-plan';


export interface RecordServiceDeps {
  readonly db: Knex;
  /** Where Find, FindOne and grouped lists read outside a transaction (SQLite's readers); absent: `db`. */
  readonly readDb?: Knex;
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
  /** Bytes of one read answer (ANSWER_MAX_BYTES): the text its rows show is counted as they are read; unset: no bound. */
  readonly answerMaxBytes?: number;
  /** Relation links one write call may write, published copies' included (WRITE_MAX_LINKS; write-limits.ts). */
  readonly writeMaxLinks?: number;
  /** Query cost bounds (QUERY_MAX_RELATION_HOPS, QUERY_MAX_RELATION_SCOPES); limits.ts defaults when absent. */
  readonly cost?: CostBounds;
  readonly now?: () => Date;
  /** Media fields (issue 6); without it media fields are neither written nor resolved. */
  readonly media?: MediaService | null;
  /** The event outbox (issue 15): one event per written record, in the write's transaction. */
  readonly events?: EventPipeline | null;
  /** Lifecycle hooks (issue 15): before* in the write's transaction, after* after its commit. */
  readonly hooks?: HookRunner | null;
  /** LOCALES / DEFAULT_LOCALE (issue 14); absent: `en` alone. */
  readonly locales?: LocaleSettings;
}

const ONLY_EN: LocaleSettings = { list: ['en'], defaultLocale: 'en' };

/**
 * Who writes, as the service needs it: the actor (createdBy / updatedBy) and the models the caller may not
 * `find` (the written model itself among them when the caller may not read it: no file links then). A write answer shows a related record of such a model as `{ id }` alone, and a bad reference to
 * one says only "invalid reference" (issue 13 item 3: what reads hide, writes must not show).
 */
export interface Caller {
  readonly actor: Actor | null;
  readonly unreadable: ReadonlySet<string>;
  /**
   * The caller's row-level rule for this write's action (issue 16; `root` of the scope): update, delete
   * and recover reach only the records it matches (404 otherwise), and a create or update must leave
   * the record inside it (403, checked in the same transaction). Absent: every record.
   */
  readonly scope?: RowScope;
  /** The caller's rule for `<model>.publish` on a create (issue 16): a create that publishes must leave the record inside it (403). */
  readonly publishScope?: RowScope;
}

/** What a read is checked against under row-level rules and field lists (records/access.ts). */
export interface ReadAccess {
  /** The registry with the attributes the caller may not read made private. */
  readonly registry: Registry;
  /** The caller's row rules (issue 16); absent: none. */
  readonly scope?: RowScope;
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

/**
 * Items of a bulk call fail with their index: `details.errors: [{index, fields}]`. A lifecycle hook's refusal
 * (HookError, any status) keeps its status and its other details; its `fields` move into `errors`. A 422
 * (validation, or a hook's) also has `details.fields` (spec 7), its messages prefixed with the item
 * (bulk-fields.ts); other statuses have `details.errors` only.
 */
function atIndex(err: unknown, index: number): never {
  const fields = err instanceof AppError ? ((err.details.fields as Record<string, string[]> | undefined) ?? {}) : {};
  const errors = [{ index, fields }];
  if (err instanceof ValidationError) throw new ValidationError(`item ${index}: ${err.message}`, mergedItemFields(errors), { errors });
  if (err instanceof ConflictError) throw new ConflictError(`item ${index}: ${err.message}`, { errors });
  if (err instanceof HookError) {
    const { fields: _fields, ...rest } = err.details;
    throw new HookError(err.status, `item ${index}: ${err.message}`, { ...(err.status === 422 && { fields: mergedItemFields(errors) }), ...rest, errors });
  }
  throw err;
}

/** The before hooks of a write (Write.before); in a bulk call (`index` not null) a refusal names the item (atIndex). */
async function beforeAt(index: number | null, w: Write, ...args: Parameters<Write['before']>): Promise<Record<string, unknown>> {
  try {
    return await w.before(...args);
  } catch (e) {
    if (index === null) throw e;
    atIndex(e, index);
  }
}

export function parseIdList(body: unknown): number[] {
  if (!Array.isArray(body) || body.length === 0) throw new BadRequestError('the body must be a non-empty JSON array of record ids');
  if (body.length > MAX_BULK_IDS) throw tooManyIds(body.length);
  const ids = body.map((v, i) => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) throw new BadRequestError(`item ${i}: ${JSON.stringify(v)} is not a record id (a positive integer)`);
    return v;
  });
  if (new Set(ids).size !== ids.length) throw new BadRequestError('the id list names a record twice');
  return ids;
}

/**
 * Acts on each row of `targets` once, in order (two ids of one entry may name the same rows); answers, per
 * target, the record of its answer row: as acted on, or read (`read`) when the call did not act on it.
 */
async function actOnce(targets: readonly LocaleTargets[], act: (row: number, index: number) => Promise<ApiRecord>, read: (row: number) => Promise<ApiRecord>): Promise<ApiRecord[]> {
  const done = new Map<number, ApiRecord>();
  for (const [index, t] of targets.entries()) for (const row of t.rows) if (!done.has(row)) done.set(row, await act(row, index));
  const out: ApiRecord[] = [];
  for (const t of targets) out.push(done.get(t.answer) ?? (await read(t.answer)));
  return out;
}

export class RecordService {
  private readonly now: () => Date;
  private readonly writeMaxLinks: number;
  private readonly writeBack: WriteBack;
  private readonly effects: WriteEffects;
  /** What hard deletes' foreign keys change elsewhere (onDelete cascade / set null), to announce it: planned at boot. */
  private readonly cascades: CascadeEvents;
  private readonly findOneQueries = new Map<string, CheckedQuery>();
  /** Write answers of publish (issue 14): the entry read from the published view. */
  private readonly publishedBack: WriteBack;

  constructor(private readonly deps: RecordServiceDeps) {
    this.now = deps.now ?? (() => new Date());
    this.writeMaxLinks = deps.writeMaxLinks ?? DEFAULT_WRITE_MAX_LINKS;
    this.writeBack = new WriteBack(deps.registry, deps.dialect);
    this.publishedBack = new WriteBack(publishedView(deps.registry), deps.dialect);
    this.effects = new WriteEffects(deps.events ?? null, deps.hooks ?? null, (trx, model, id, scope) => this.findOneAnswer(trx, model, id, scope), (model) => this.findOneQuery(model));
    this.cascades = new CascadeEvents(deps.registry, deps.dialect);
  }

  /** FindOne's checked query without parameters (checked once per model). */
  /** FindOne without parameters on `version` (issue 14: the published view, or the working copies). */
  private findOneQuery(model: ContentType, version: Version = 'draft'): CheckedQuery {
    const key = `${version}:${model.name}`;
    let q = this.findOneQueries.get(key);
    if (!q) {
      const registry = this.registryFor(version);
      q = this.check(registry.get(model.name) ?? model, parseListQuery({}, FIND_ONE_PARAMS), { registry });
      this.findOneQueries.set(key, q);
    }
    return q;
  }

  /** Record `id` as a FindOne without parameters answers it (in `scope`; `version` of a draft-enabled model), through `db`: the events' record. */
  async findOneAnswer(db: repo.Db, model: ContentType, id: number, scope: SoftDeleteScope, version: Version = 'draft'): Promise<ApiRecord | null> {
    const q = this.findOneQuery(model, version);
    const { dialect } = this.deps;
    const row = await repo.findById(db, dialect, q.model, id, scope, withLinks(q.select, q.populate));
    if (!row) return null;
    // The record of an event or a hook, not an answer: no byte bound (a write must not fail over it).
    const [record] = await serializeWithPopulate(db as Knex, dialect, [row], q.select, q.populate, this.budget(false));
    await this.deps.media?.attach(db, q.model, [row], [record], q.populateMedia);
    await loc.attachLocalizations(db, q.model, [id], [record]);
    await annotate(db, q.model, [record], version);
    return record;
  }

  get registry(): Registry {
    return this.deps.registry;
  }

  /** The registry a read of `status` runs on (issue 14): the published view, or the working copies. */
  registryFor(status: Version): Registry {
    return status === 'published' ? publishedView(this.deps.registry) : this.deps.registry;
  }

  /** `access`: the caller's view (issue 16) of the registry the read runs on (registryFor); default: the working copies, no rules. */
  check(model: ContentType, q: ListQuery, access?: ReadAccess): CheckedQuery {
    const { registry, maxLimit, populateDefaultLimit, populateMaxLimit } = this.deps;
    return checkListQuery(q, model, { registry: access?.registry ?? registry, maxLimit, populateDefaultLimit, populateMaxLimit, cost: this.deps.cost, scope: access?.scope });
  }

  /** The write's rule as a filter at t0 (null: every record). */
  private writeRule(model: ContentType, caller: Caller): CheckedFilter | null {
    if (!caller.scope?.root) return null;
    return checkListQuery(emptyListQuery('active'), model, { registry: this.deps.registry, maxLimit: 1, scope: caller.scope }).filter;
  }

  /** Inside the write's transaction: the record must still (or now) match the caller's rule for `action`. */
  private async mustStayInside(trx: Knex.Transaction, model: ContentType, id: number, caller: Caller, action: string): Promise<void> {
    const rule = this.writeRule(model, caller);
    if (!rule) return;
    const found = await repo.idsWhere(trx, this.deps.dialect, model, [id], 'inclusive', rule, false);
    if (!found.has(id)) throw new ForbiddenError(`this ${action === 'update' ? 'update' : 'create'} would leave ${model.name} ${id} outside your rule for ${model.name}.${action}`);
  }

  /**
   * Inside an update's transaction: `others`, the entry's other locale rows its shared values reach, are inside
   * the caller's update rule (403 naming the first that is not, before anything is written).
   */
  private async mustBeInside(trx: Knex.Transaction, model: ContentType, others: readonly number[], caller: Caller, action = 'update'): Promise<void> {
    const rule = others.length > 0 ? this.writeRule(model, caller) : null;
    if (!rule) return;
    const found = await repo.idsWhere(trx, this.deps.dialect, model, others, 'active', rule, false);
    const outside = others.find((o) => !found.has(o));
    if (outside !== undefined) {
      throw new ForbiddenError(`this ${action} changes values every locale of the entry shares, and ${model.name} ${outside} is outside your rule for ${model.name}.${action}`, { id: outside });
    }
  }

  /** One per read answer: counts its records against ANSWER_MAX_RECORDS and the text they show against ANSWER_MAX_BYTES. */
  private budget(bytes = true): RecordBudget {
    return new RecordBudget(this.deps.answerMaxRecords ?? Number.POSITIVE_INFINITY, bytes ? (this.deps.answerMaxBytes ?? Number.POSITIVE_INFINITY) : Number.POSITIVE_INFINITY);
  }

  /** Where reads outside a transaction go: SQLite's read-only connections, else the pool. */
  private get reader(): Knex {
    return this.deps.readDb ?? this.deps.db;
  }

  /**
   * The page of a Find. A page showing long values (text, json) under a byte bound is read a part at a
   * time (populate.ts: 16 rows, then as many as the bytes left would hold), refused with a 413 naming
   * ANSWER_MAX_BYTES once the text read passes it: 100 records of 1 MB notes are not all read first.
   */
  private async findPage(db: Knex, q: CheckedQuery, budget: RecordBudget): Promise<{ rows: Row[]; total: number }> {
    const { dialect } = this.deps;
    let size = firstPageRows(q.select, budget);
    if (q.limit <= size) return repo.findPage(db, dialect, q);
    const first = await repo.findPage(db, dialect, { ...q, limit: size });
    const rows = first.rows;
    let chars = 0;
    for (let read = 0; ; ) {
      const part = rows.slice(read);
      for (const row of part) chars += textChars(row, q.select);
      // Only looked at: serializeWithPopulate counts the page's bytes into the budget.
      if (chars > budget.remainingBytes()) throw AnswerTooLargeError.bytes(budget.maxBytes);
      if (part.length < size || rows.length >= q.limit) return { rows, total: first.total };
      read = rows.length;
      size = Math.min(q.limit - read, nextPageRows(budget.remainingBytes() - chars, chars, read));
      const next = await repo.findPage(db, dialect, { ...q, offset: q.offset + read, limit: size }, false);
      for (const row of next.rows) rows.push(row);
    }
  }

  async find(q: CheckedQuery): Promise<ListResult> {
    const { dialect } = this.deps;
    const db = this.reader;
    const budget = this.budget();
    const { rows, total } = await this.run(q.model, () => this.findPage(db, q, budget));
    const records = await this.run(q.model, () => serializeWithPopulate(db, dialect, rows, q.select, q.populate, budget));
    await this.run(q.model, async () => this.deps.media?.attach(db, q.model, rows, records, q.populateMedia));
    await this.run(q.model, () => loc.attachLocalizations(db, q.model, rows.map((r) => Number(r.id)), records));
    await this.run(q.model, () => annotate(db, q.model, records, versionRead(q.model)));
    await this.run(q.model, () => annotatePopulated(db, records, q.populate));
    const currentPage = q.limit > 0 ? Math.floor(q.offset / q.limit) + 1 : 1;
    const totalPages = q.limit > 0 ? Math.ceil(total / q.limit) : 0;
    return { records, meta: { totalRecords: total, currentPage, totalPages } };
  }

  /** A Find with groupBy / aggregates (spec 4.5); see group-service.ts. */
  async checkGrouped(model: ContentType, q: ListQuery, access?: ReadAccess): Promise<CheckedGroupQuery> {
    const { registry, maxLimit, populateDefaultLimit, populateMaxLimit, cost } = this.deps;
    const zoned = q.group !== null && q.group.timezone !== null;
    return checkGroupedQuery(q, model, { registry: access?.registry ?? registry, maxLimit, timeZones: zoned ? await this.timeZones() : null, populateDefaultLimit, populateMaxLimit, cost, scope: access?.scope });
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
    return this.run(q.model, async () => {
      const db = this.reader;
      const out = await findGrouped(db, this.deps.dialect, q, this.budget());
      const grouped = out.groupRecords?.flatMap((g) => g.records) ?? [];
      await annotate(db, q.model, grouped, versionRead(q.model));
      await annotatePopulated(db, grouped, q.records.populate);
      return out;
    });
  }

  async findOne(q: CheckedQuery, id: number): Promise<ApiRecord> {
    const { dialect } = this.deps;
    const db = this.reader;
    return this.run(q.model, async () => {
      // FindOne takes no filters: a filter here is the caller's rule (issue 16), compiled into the same SELECT.
      const row = q.filter
        ? await repo.findByIdWhere(db, dialect, q.model, id, q.softDelete, withLinks(q.select, q.populate), q.filter)
        : await repo.findById(db, dialect, q.model, id, q.softDelete, withLinks(q.select, q.populate));
      if (!row) throw new NotFoundError(`no ${q.model.name} with id ${id}`);
      const [record] = await serializeWithPopulate(db, dialect, [row], q.select, q.populate, this.budget());
      await this.deps.media?.attach(db, q.model, [row], [record], q.populateMedia);
      await loc.attachLocalizations(db, q.model, [id], [record]);
      await annotate(db, q.model, [record], versionRead(q.model));
      await annotatePopulated(db, [record], q.populate);
      return record;
    });
  }

  /** The configured locales (issue 14). */
  get locales(): LocaleSettings {
    return this.deps.locales ?? ONLY_EN;
  }

  /**
   * Issue 14: the row a by-id call on an i18n model acts on, `locale` given (see locales.ts rowFor). The hook
   * for publish/unpublish (drafts): resolve `locale=` here like update does, then publish that row.
   */
  async rowFor(model: ContentType, id: number, locale: string | null, scope: 'active' | 'inclusive' | 'exclusive'): Promise<number> {
    return this.run(model, () => loc.rowFor(this.deps.db, model, id, locale, scope));
  }

  /** Find in a locale (issue 14): DEFAULT_LOCALE unless `locale=` names one, every locale with `locale=all`. */
  inLocale(q: CheckedQuery, choice: loc.LocaleChoice): CheckedQuery {
    return loc.listInLocale(q, choice, this.locales);
  }

  groupInLocale(q: CheckedGroupQuery, choice: loc.LocaleChoice): CheckedGroupQuery {
    return loc.groupInLocale(q, choice, this.locales);
  }

  /**
   * `POST /api/{model}/{id}/localizations?locale=<code>` (issue 14): entry `id` (any of its rows) in another
   * locale. The body names localized fields only; shared ones (localized: false, relations) are copied.
   */
  async createLocalization(model: ContentType, id: number, body: unknown, caller: Caller, locale: string | null): Promise<ApiRecord> {
    if (!model.i18n) throw new NotFoundError(`${model.name} has no locales`);
    if (locale === null) throw new BadRequestError(`locale= is required: the locale to create (one of ${this.locales.list.join(', ')})`, { parameter: loc.LOCALE_PARAM });
    const shared = loc.sharedFieldNames(model).filter((f) => typeof body === 'object' && body !== null && Object.prototype.hasOwnProperty.call(body, f));
    if (shared.length > 0) {
      throw new ValidationError(`${shared.join(', ')}: shared by every locale of the entry; change them through an update of the entry`, Object.fromEntries(shared.map((f) => [f, ['is shared by every locale (localized: false); not part of a localization']])));
    }
    const data = this.validators(model).check(body, 'patch');
    const missing = model.attributes.filter((a) => a.kind === 'scalar' && a.required && a.localized !== false && a.default === undefined && a.writable !== false && !Object.hasOwn(data, a.name));
    if (missing.length > 0) throw new ValidationError(`invalid ${model.name}`, Object.fromEntries(missing.map((a) => [a.name, ['is required']])));
    // A create like any other (issue 15): before/afterCreate hooks, one record.create event in the transaction.
    const w = this.effects.start(caller.actor);
    const out = await this.transaction(model, async (trx) => {
      // One write per entry (entry-lock.ts): a localization of the same locale in parallel waits, then sees this one (409).
      await this.lockEntries(trx, model, [id]);
      const named = await loc.localeRow(trx, model, id);
      if (!named || !named.active) throw new NotFoundError(`no ${model.name} with id ${id}`);
      // issue 16: the call needs `create` (README, Locales): it reaches only rows inside the create rule (404)
      await this.mustExist(trx, model, id, 'active', this.writeRule(model, caller));
      const rows = await loc.entryRows(trx, model, named.entry);
      const taken = rows.find((r) => r.locale === locale);
      if (taken) {
        throw new ConflictError(`${model.name} ${id} already has a ${locale} locale: row ${taken.id}${taken.active ? '' : ' (archived: recover it)'}`, { locale, id: taken.id });
      }
      const anchor = rows.find((r) => r.id === named.entry);
      if (!anchor || !anchor.active) throw new NotFoundError(`no ${model.name} with id ${id}`);
      const state = await w.before(trx, 'create', model, null, data, 'create');
      // The shared values come after the body (and what a hook put in it): they are the entry's.
      const extra = { ...(await loc.sharedValuesOf(trx, model, named.entry)), [loc.LOCALE_COLUMN]: locale, [loc.ENTRY_COLUMN]: named.entry };
      const { id: newId, record } = await this.insert(trx, model, data, caller, [], extra);
      await this.mustStayInside(trx, model, newId, caller, 'create');
      await loc.attachLocalizations(trx, model, [newId], [record]);
      const answer = { ...record, createdBy: createdBy(caller.actor), updatedBy: updatedBy(caller.actor) };
      await annotate(trx, model, [answer], 'draft');
      await w.record(trx, 'create', model, newId, answer, 'create', state, 'active');
      return answer;
    });
    await w.committed();
    return out;
  }

  /** `files`: the file parts of a multipart create (issue 6), still in their temporary files. */
  /**
   * `locale` (i18n models): the new entry's locale (default DEFAULT_LOCALE); its row is the entry's default-locale row.
   * `publish` (draftAndPublish models, `status=published` on the create): the new entry is published in the same transaction.
   */
  async create(model: ContentType, body: unknown, caller: Caller, files: readonly IncomingFile[] = [], locale: string | null = null, publish = false): Promise<ApiRecord> {
    const data = this.validators(model).check(body, 'create');
    checkLinks(linksOf(model, data) * (publish ? 2 : 1), this.writeMaxLinks);
    const prepared = await this.prepareFiles(model, files);
    const by = { createdBy: createdBy(caller.actor), updatedBy: updatedBy(caller.actor) };
    if (!model.i18n && !hasDrafts(model) && this.isSingleStatement(model, data, 'create', prepared) && !caller.scope?.root) {
      const { db } = this.deps;
      return this.run(model, async () => ({ ...(await this.insert(db, model, data, caller)).record, ...by }));
    }
    const w = this.effects.start(caller.actor);
    const out = await this.withFiles(model, prepared, async (trx) => {
      const state = await w.before(trx, 'create', model, null, data, 'create');
      const { id, record } = await this.insert(trx, model, data, caller, prepared, model.i18n ? this.newEntry(locale) : {});
      await this.mustStayInside(trx, model, id, caller, 'create');
      const published = publish ? await this.publishCreated(trx, w, model, id, caller) : null;
      await loc.attachLocalizations(trx, model, [id], [record]);
      const answer = await this.withMedia(trx, model, id, { ...record, ...by, ...(publish && { publishedAt: await this.publishedAtOf(trx, model, id) }) }, data, prepared, caller);
      await annotate(trx, model, [answer], 'draft');
      await w.record(trx, 'create', model, id, answer, 'create', state, 'active');
      if (published) await published(answer);
      return answer;
    });
    await w.committed();
    return out;
  }

  async createMany(model: ContentType, body: unknown, caller: Caller, locale: string | null = null, publish = false): Promise<ApiRecord[]> {
    const { actor } = caller;
    if (!Array.isArray(body) || body.length === 0) throw new BadRequestError('the body must be a non-empty JSON array of records');
    if (body.length > MAX_BULK_ITEMS) throw tooManyItems(body.length);
    const v = this.validators(model);
    const errors = body.flatMap((item, index) => {
      const fields = v.errors(item, 'create');
      return fields ? [{ index, fields }] : [];
    });
    if (errors.length > 0) {
      const fields = mergedItemFields(errors);
      throw new ValidationError(`invalid ${model.name} records at ${errors.map((e) => e.index).join(', ')}`, fields, { ...relationIdsDetails(fields), errors });
    }
    const items = body.map((item) => v.check(item, 'create'));
    // a create that publishes writes each link twice: the draft's and the published copy's
    checkLinks(items.reduce((n, data) => n + linksOf(model, data), 0) * (publish ? 2 : 1), this.writeMaxLinks);
    const w = this.effects.start(actor);
    const records = await this.transaction(model, async (trx) => {
      const out: ApiRecord[] = [];
      for (const [index, data] of items.entries()) {
        try {
          const state = await w.before(trx, 'create', model, null, data, 'create');
          const { id, record } = await this.insert(trx, model, data, caller, [], model.i18n ? this.newEntry(locale) : {});
          await this.mustStayInside(trx, model, id, caller, 'create');
          const published = publish ? await this.publishCreated(trx, w, model, id, caller) : null;
          const answer = { ...record, createdBy: createdBy(actor), updatedBy: updatedBy(actor), ...(publish && { publishedAt: await this.publishedAtOf(trx, model, id) }) };
          await w.record(trx, 'create', model, id, answer, 'create', state, 'active');
          if (published) await published(answer);
          out.push(answer);
        } catch (e) {
          atIndex(this.translated(e, model), index);
        }
      }
      await annotate(trx, model, out, 'draft');
      return out;
    });
    await w.committed();
    return records;
  }

  async update(model: ContentType, id: number, body: unknown, mode: Exclude<WriteMode, 'create'>, caller: Caller, files: readonly IncomingFile[] = []): Promise<ApiRecord> {
    const { actor, unreadable } = caller;
    const data = this.validators(model).check(body, mode);
    checkLinks(linksOf(model, data), this.writeMaxLinks);
    const prepared = await this.prepareFiles(model, files);
    const stamp = (row: Row): Row => Object.assign(row, { updated_at: toIsoTimestamp(this.now()), updated_by_id: authorOf(actor)?.id ?? null });
    if (!model.i18n && this.isSingleStatement(model, data, mode, prepared) && !caller.scope?.root) {
      const { db } = this.deps;
      return this.run(model, async () => {
        const { row, related } = await this.toRow(db, model, data, mode, unreadable);
        const updated = await repo.updateActiveReturning(db, this.deps.dialect, model, id, stamp(row), this.writeBack.columns(model));
        if (!updated) throw new NotFoundError(`no ${model.name} with id ${id}`);
        const out = { ...(await this.writeBack.present(db, model, updated, unreadable, related)), updatedBy: updatedBy(actor) };
        await annotate(db, model, [out], 'draft');
        return out;
      });
    }
    const w = this.effects.start(actor);
    const out = await this.withFiles(model, prepared, async (trx, obsolete) => {
      await this.lockEntries(trx, model, [id]);
      await this.mustExist(trx, model, id, 'active', this.writeRule(model, caller));
      const state = await w.before(trx, 'update', model, id, data, mode);
      const { row, links } = await this.toRow(trx, model, data, mode, unreadable);
      // issue 16: a shared value (or link) is written to every locale row of the entry, so each of them must be
      // inside the caller's update rule, as the row named is (a translator's rule on one locale writes no other)
      const sharedTo = caller.scope?.root && loc.sharesValues(model, row, links.length > 0) ? await loc.otherActiveRows(trx, model, id) : [];
      await this.mustBeInside(trx, model, sharedTo, caller);
      await repo.updateRow(trx, model, id, stamp(row));
      // issue 14: shared values reach every locale row of the entry; links hang off the entry id
      const siblings = model.i18n ? await loc.shareValues(trx, model, id, row, links.length > 0) : [];
      const linkOwner = await loc.entryIdOf(trx, model, id);
      for (const [rel, ids] of links) await repo.setLinks(trx, rel, linkOwner, ids);
      for (const other of [id, ...sharedTo]) await this.mustStayInside(trx, model, other, caller, 'update');
      if (this.deps.media) for (const key of await this.deps.media.write(trx, model, id, data, prepared, false)) obsolete.push(key);
      const record = { ...(await this.writeBack.read(trx, model, id, 'active', unreadable)), updatedBy: updatedBy(actor) };
      await loc.attachLocalizations(trx, model, [id], [record]);
      const answer = await this.withMedia(trx, model, id, record, data, prepared, caller);
      await annotate(trx, model, [answer], 'draft');
      await w.record(trx, 'update', model, id, answer, mode, state, 'active');
      // the entry's other locale rows changed too (shared values, links, the stamp): a record.update each
      for (const sibling of siblings) await w.alsoChanged(trx, 'update', model, sibling, 'active');
      return answer;
    });
    await w.committed();
    return out;
  }

  /**
   * Issue 14: publish (or unpublish) entries: one id, or a bulk id list in one transaction. `locale` (i18n
   * models): a code acts on that locale row of each entry, `all` on every locale (core/drafts/localized.ts).
   */
  async publish(model: ContentType, ids: number | unknown, caller: Caller, unpublish = false, locale: loc.LocaleChoice = null): Promise<ApiRecord[]> {
    const list = typeof ids === 'number' ? [ids] : parseIdList(ids);
    const kind = unpublish ? 'unpublish' : 'publish';
    const w = this.effects.start(caller.actor);
    const done = await this.withFiles(model, [], async (trx, obsolete) => {
      await this.lockEntries(trx, model, list);
      await this.allExist(trx, model, list, 'active');
      // issue 16: every row the call touches is inside the caller's publish rule, or nothing changes (404)
      const plan = await publishPlan(trx, this.deps.dialect, model, list, locale, unpublish, this.writeRule(model, caller));
      // before anything is written: the links the copies would take (WRITE_MAX_LINKS)
      if (!unpublish) checkLinks(await linksToCopy(trx, model, plan.flatMap((p) => p.rows)), this.writeMaxLinks);
      const out: ApiRecord[] = [];
      const view = publishedView(this.deps.registry).get(model.name) as ContentType;
      // issue 15: other locales' published copies a publish changed (shared values, links): their record.publish
      const sharedTo = new Map<number, ApiRecord | null>();
      // issue 16: the copies among them whose shared values (or links) the publish wrote
      const valuesTo = new Set<number>();
      for (const [index, { rows, answer }] of plan.entries()) {
        let record: ApiRecord | null = null;
        for (const id of rows) {
          // A bulk call's refusal names the id's place in the list (plan: one target per id, in order).
          const state = await beforeAt(typeof ids === 'number' ? null : index, w, trx, kind, model, id, {}, kind);
          // An unpublish of what is not published changes nothing: it answers as usual, announces nothing.
          let changed = true;
          if (unpublish) {
            // The working row is locked first, as a publish locks it: the two never deadlock on the copy.
            const working = await workingRow(trx, model, id, this.deps.dialect.rowLocks);
            const orphaned = await refuseOrphanedCopies(trx, model, id);
            for (const archived of orphaned) {
              for (const key of await removeCopy(trx, model, archived)) obsolete.push(key);
              await repo.updateRow(trx, model, archived, { published_at: null });
            }
            const copied = await hasCopy(trx, model, id);
            if (copied) for (const key of await removeCopy(trx, model, id)) obsolete.push(key);
            changed = copied || orphaned.length > 0 || (working?.published_at ?? null) !== null;
            if (changed) await repo.updateRow(trx, model, id, { published_at: null });
          } else {
            const others = await otherPublishedLocales(trx, model, id);
            const before = await this.publishedAnswers(trx, model, id, others);
            await this.publishOne(trx, model, id, caller, obsolete);
            const after = await this.publishedAnswers(trx, model, id, others);
            for (const other of others) {
              if (after.links !== before.links || JSON.stringify(after.records.get(other)) !== JSON.stringify(before.records.get(other))) sharedTo.set(other, after.records.get(other) ?? null);
              // the shared values themselves (not only the copy's list of localizations) changed in that copy
              if (after.links !== before.links || loc.sharedAnswerValues(model, after.records.get(other)) !== loc.sharedAnswerValues(model, before.records.get(other))) valuesTo.add(other);
            }
          }
          // The event's record (issue 15): a publish announces the published copy, an unpublish the draft left.
          const payload = await this.findOneAnswer(trx, model, id, 'active', unpublish ? 'draft' : 'published');
          if (id === answer) {
            record = unpublish ? await this.writeBack.read(trx, model, id, 'active', caller.unreadable) : await this.publishedBack.read(trx, view, id, 'active', caller.unreadable);
            await loc.attachLocalizations(trx, unpublish ? model : view, [id], [record]);
            await annotate(trx, unpublish ? model : view, [record], unpublish ? 'draft' : 'published');
          }
          if (changed) await w.record(trx, kind, model, id, id === answer && record ? record : (payload ?? { id }), kind, state, 'active', payload);
        }
        out.push(record ?? (await this.writeBack.read(trx, model, answer, 'active', caller.unreadable)));
      }
      const acted = new Set(plan.flatMap((p) => p.rows));
      // issue 16: a publish that changed other locales' published copies (shared values) wrote them too: each
      // must be inside the caller's publish rule, as the rows it names are (else 403, nothing published)
      await this.mustBeInside(trx, model, [...valuesTo].filter((o) => !acted.has(o)), caller, 'publish');
      for (const [other, payload] of sharedTo) if (!acted.has(other)) await w.alsoChanged(trx, kind, model, other, 'active', payload);
      return out;
    });
    await w.committed();
    return done;
  }

  /**
   * The published copies of `others` (other locale rows of row `id`'s entry) as FindOne answers them (the
   * events' records), and the entry's published links (shared by every locale; not in those answers).
   */
  private async publishedAnswers(trx: Knex.Transaction, model: ContentType, id: number, others: readonly number[]): Promise<{ records: Map<number, ApiRecord | null>; links: string }> {
    const records = new Map<number, ApiRecord | null>();
    if (others.length === 0) return { records, links: '' };
    for (const other of others) records.set(other, await this.findOneAnswer(trx, model, other, 'active', 'published'));
    return { records, links: await publishedLinks(trx, model, await loc.entryIdOf(trx, model, id)) };
  }

  /**
   * A create that publishes at once (`status=published`) is a publish too: its `beforePublish` hooks run
   * (and may refuse) before the copy is written; the answered function appends its `record.publish` (the
   * published copy), to call after the create's own event.
   */
  private async publishCreated(trx: Knex.Transaction, w: Write, model: ContentType, id: number, caller: Caller): Promise<(answer: ApiRecord) => Promise<void>> {
    const state = await w.before(trx, 'publish', model, id, {}, 'publish');
    await this.publishOne(trx, model, id, caller, []);
    return async (answer) => w.record(trx, 'publish', model, id, answer, 'publish', state, 'active', await this.findOneAnswer(trx, model, id, 'active', 'published'));
  }

  private async publishOne(trx: Knex.Transaction, model: ContentType, id: number, caller: Caller, obsolete: string[]): Promise<void> {
    const row = await workingRow(trx, model, id, this.deps.dialect.rowLocks);
    if (!row) throw new NotFoundError(`no ${model.name} with id ${id}`);
    // issue 16: a create that publishes at once (status=published) stays inside the caller's publish rule
    if (caller.publishScope) await this.mustStayInside(trx, model, id, { ...caller, scope: caller.publishScope }, 'publish');
    await refuseWithoutPublishedEntry(trx, model, row);
    try {
      for (const key of await writeCopy(trx, model, id, row, toIsoTimestamp(this.now()))) obsolete.push(key);
      await shareToCopies(trx, model, row);
    } catch (e) {
      const err = this.translated(e, model);
      if (err instanceof ConflictError) throw new ConflictError(`cannot publish ${model.name} ${id}: a published entry already holds its unique value`, err.details);
      throw err;
    }
  }

  private async publishedAtOf(trx: Knex.Transaction, model: ContentType, id: number): Promise<unknown> {
    const row = await repo.findById(trx, this.deps.dialect, model, id, 'inclusive', [{ name: 'publishedAt', column: 'published_at', type: 'datetime' }]);
    return row ? ATTRIBUTE_KINDS.datetime.fromDb(row.published_at) : null;
  }

  /**
   * `locale` (i18n models, issue 14): absent → the row `id` names; a code → that locale of the entry; `all` → every
   * locale of the entry (locale-targets.ts). The answer is the row `id` names (or, for a code, that locale's row).
   */
  async remove(model: ContentType, id: number, caller: Caller, locale: loc.LocaleChoice = null): Promise<ApiRecord> {
    return (await this.removeRows(model, [id], caller, locale, false))[0];
  }

  /** Bulk delete: `locale` as for remove, for each id; one transaction, one answer per id in body order. */
  async removeMany(model: ContentType, body: unknown, caller: Caller, locale: loc.LocaleChoice = null): Promise<ApiRecord[]> {
    return this.removeRows(model, parseIdList(body), caller, locale, true);
  }

  /** `locale` as for remove (issue 14): absent → the row `id` names; a code → that archived locale; `all` → every archived locale. */
  async recover(model: ContentType, id: number, caller: Caller, locale: loc.LocaleChoice = null): Promise<ApiRecord> {
    return (await this.recoverRows(model, [id], caller, locale, false))[0];
  }

  /** Bulk recover: `locale` as for recover, for each id; one transaction, one answer per id in body order. */
  async recoverMany(model: ContentType, body: unknown, caller: Caller, locale: loc.LocaleChoice = null): Promise<ApiRecord[]> {
    return this.recoverRows(model, parseIdList(body), caller, locale, true);
  }

  /**
   * Deletes what each of `ids` names with `locale=`, in one transaction with their entries locked first. A
   * bulk call checks every id first (404 listing the missing ones; with a locale the id may name any active
   * row of its entry, and the caller's rule is checked on the rows deleted).
   */
  private async removeRows(model: ContentType, ids: readonly number[], caller: Caller, locale: loc.LocaleChoice, bulk: boolean): Promise<ApiRecord[]> {
    const w = this.effects.start(caller.actor);
    const out = await this.withFiles(model, [], async (trx, obsolete) => {
      await this.lockEntries(trx, model, ids);
      if (bulk) await this.allExist(trx, model, ids, 'active', locale === null ? this.writeRule(model, caller) : null);
      const targets: LocaleTargets[] = [];
      for (const id of ids) targets.push(await deleteTargets(trx, model, id, locale));
      return actOnce(targets, (row, index) => this.removeOne(trx, model, row, caller, obsolete, w, bulk ? index : null), (row) => this.writeBack.read(trx, model, row, 'inclusive', caller.unreadable));
    });
    await w.committed();
    return out;
  }

  /** Recovers what each of `ids` names with `locale=`, as removeRows deletes (with a locale the id may name any row of its entry). */
  private async recoverRows(model: ContentType, ids: readonly number[], caller: Caller, locale: loc.LocaleChoice, bulk: boolean): Promise<ApiRecord[]> {
    const w = this.effects.start(caller.actor);
    const out = await this.transaction(model, async (trx) => {
      await this.lockEntries(trx, model, ids);
      if (bulk) await this.allExist(trx, model, ids, locale === null ? 'exclusive' : 'inclusive', locale === null ? this.writeRule(model, caller) : null);
      const targets: LocaleTargets[] = [];
      for (const id of ids) targets.push(await recoverTargets(trx, model, id, locale));
      return actOnce(targets, (row, index) => this.recoverOne(trx, model, row, caller, w, bulk ? index : null), (row) => this.writeBack.read(trx, model, row, 'active', caller.unreadable));
    });
    await w.committed();
    return out;
  }

  // ---- internals ----

  /** The columns of a new entry's first row (issue 14). */
  private newEntry(locale: string | null): Row {
    return { [loc.LOCALE_COLUMN]: locale ?? this.locales.defaultLocale };
  }

  private validators(model: ContentType): ModelValidators {
    const v = this.deps.validators.get(model.name);
    if (!v) throw new Error(`no validators for ${model.name}`);
    return v;
  }

  /** The entries of rows `ids`, locked until `trx` ends (i18n models with row locks; entry-lock.ts). First thing in the transaction. */
  private lockEntries(trx: Knex.Transaction, model: ContentType, ids: readonly number[]): Promise<void> {
    return lockEntries(trx, this.deps.dialect, model, ids);
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
    if (!this.deps.media || (prepared.length === 0 && !fields.some((f) => Object.hasOwn(data, f.name)))) return record;
    await this.deps.media.attach(trx, model, [{ id }], [record], fields, { urls: !caller.unreadable.has(model.name) });
    return record;
  }

  /** `rule`: the caller's rule for the action (issue 16); a record outside it answers 404 like a missing one. */
  private async mustExist(trx: Knex.Transaction, model: ContentType, id: number, scope: 'active' | 'exclusive', rule: CheckedFilter | null = null): Promise<Row | undefined> {
    const row = rule
      ? (await repo.idsWhere(trx, this.deps.dialect, model, [id], scope, rule, true)).has(id) ? { id } : undefined
      : await repo.findById(trx, this.deps.dialect, model, id, scope, [{ name: 'id', column: 'id', type: 'integer' }], true);
    if (!row) throw new NotFoundError(scope === 'active' ? `no ${model.name} with id ${id}` : `no archived ${model.name} with id ${id}`);
    return row;
  }

  private async allExist(trx: Knex.Transaction, model: ContentType, ids: readonly number[], scope: SoftDeleteScope, rule: CheckedFilter | null = null): Promise<void> {
    const found = rule ? await repo.idsWhere(trx, this.deps.dialect, model, ids, scope, rule, true) : await repo.activeIds(trx, model, ids, scope);
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
    // Events and hooks run in the write's transaction (issue 15): the outbox row commits with the change.
    if (this.effects.transactional) return false;
    if (prepared.length > 0 || mediaFields(model).some((f) => Object.hasOwn(data, f.name))) return false;
    return !model.attributes.some((a) => a.kind === 'relation' && a.owner && a.joinTable && (Object.hasOwn(data, a.name) || mode === 'put'));
  }

  /** Inserts one record (its links and media too): the record as the write answers it. */
  /**
   * `extra`: columns set besides the body's (issue 14: `locale_name`, the entry id and shared values of a new
   * locale row). A row with `locale_name` and no entry id starts an entry: it points at itself.
   */
  private async insert(db: repo.Db, model: ContentType, data: Record<string, unknown>, caller: Caller, prepared: readonly PreparedFile[] = [], extra: Row = {}): Promise<{ id: number; record: ApiRecord }> {
    const { actor, unreadable } = caller;
    const { row, links, related } = await this.toRow(db, model, data, 'create', unreadable);
    const now = toIsoTimestamp(this.now());
    Object.assign(row, extra, { created_at: now, updated_at: now, deleted_tracker: NOT_DELETED, created_by_id: authorOf(actor)?.id ?? null, updated_by_id: authorOf(actor)?.id ?? null });
    const inserted = await repo.insertReturning(db, this.deps.dialect, model, row, this.writeBack.columns(model));
    const id = Number(inserted.id);
    if (model.i18n && extra[loc.ENTRY_COLUMN] === undefined) {
      await loc.markEntry(db, model, id);
      if (loc.ENTRY_COLUMN in inserted) inserted[loc.ENTRY_COLUMN] = id;
    }
    for (const [rel, ids] of links) await repo.setLinks(db, rel, model.i18n ? Number(extra[loc.ENTRY_COLUMN] ?? id) : id, ids);
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
      // server-only attributes: a create gives them their default, a PUT leaves them as the server set them,
      // unless a before hook put them in `data` (no body can: validation refuses them): then they are written
      // with the record, in the same statement (issue 15; the identity plugin's keys)
      if (a.writable === false && mode !== 'create' && !(a.name in data)) continue;
      if (a.kind === 'scalar') {
        if (Object.hasOwn(data, a.name)) {
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
        } else if (a.joinTable && Object.hasOwn(data, a.name)) {
          const ids = data[a.name] as number[];
          const target = this.target(a);
          const found = await repo.activeIds(trx, target, ids);
          const missing = ids.filter((i) => !found.has(i));
          if (missing.length > 0) fieldErrors[a.name] = [unreadable.has(target.name) ? INVALID_REFERENCE : `no ${target.name} with id ${missing.join(', ')}`];
          // issue 14: a link names the entry (any of its locale rows may be given)
          const entries = target.i18n ? [...new Set(await Promise.all(ids.map((i) => loc.entryIdOf(trx, target, i))))] : ids;
          links.push([a, entries]);
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
      // issue 14: a user key is unique per locale; it names an entry (the default locale's when several hold it)
      const found = target.i18n ? await loc.entryByKey(trx, target, column, byKey, this.locales.defaultLocale) : await repo.idByColumn(trx, target, column, byKey);
      if (found === 'ambiguous') {
        errors[a.userKeyField] = [hidden ? INVALID_REFERENCE : `${JSON.stringify(byKey)} names several ${target.name} entries in other locales than ${this.locales.defaultLocale}: give ${idField}`];
        return undefined;
      }
      fromKey = found;
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
    // issue 14: a link names the entry (any of its locale rows may be given)
    const id = byId === undefined || fromKey === undefined ? (byId as number) : await loc.entryIdOf(trx, target, byId as number);
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
      if (target.i18n) {
        const entry = await loc.entryIdOf(trx, target, id);
        if (entry !== id) related.delete(a.name); // the answer shows the entry's default-locale row
        return entry;
      }
    }
    return id;
  }

  /** `index`: the id's place in a bulk call's list (null: a single delete), named by a hook's refusal. */
  private async removeOne(trx: Knex.Transaction, model: ContentType, id: number, caller: Caller, obsolete: string[], w: Write, index: number | null): Promise<ApiRecord> {
    const { actor, unreadable } = caller;
    await this.mustExist(trx, model, id, 'active', this.writeRule(model, caller));
    if (model.i18n) {
      const row = await loc.localeRow(trx, model, id);
      if (row) loc.refuseOrphans(model, row, await loc.entryRows(trx, model, row.entry));
    }
    const state = await beforeAt(index, w, trx, 'delete', model, id, {}, 'delete');
    if (!model.softDelete) {
      // A model without soft delete loses the row for good; the answer shows it as it was.
      const before = await this.writeBack.read(trx, model, id, 'active', unreadable);
      const payload = await w.payload(trx, model, id, 'active', before);
      // Issue 15: the rows its foreign keys remove or set null with it (onDelete), found and read before it goes.
      const fallout = await this.cascades.before(trx, w, model, [id]);
      // Its files go too (after commit); a soft-deleted record keeps them for a recover.
      if (hasDrafts(model)) for (const key of await removeCopy(trx, model, id)) obsolete.push(key);
      if (this.deps.media) for (const key of await this.deps.media.removeForRecord(trx, model, id)) obsolete.push(key);
      try {
        await repo.deleteRow(trx, model, id);
      } catch (e) {
        // A foreign-key failure on delete means other records still point here (SQLite does not say which).
        if (this.deps.dialect.classifyError(e)?.kind === 'foreignKey') throw new ConflictError(`${model.name} ${id} is still referenced by other records`);
        throw e;
      }
      const answer = { ...before, updatedBy: updatedBy(actor) };
      await w.record(trx, 'delete', model, id, answer, 'delete', state, 'active', payload);
      await fallout?.announce(trx, w);
      return answer;
    }
    const now = toIsoTimestamp(this.now());
    // The tracker is unique per archived record, so two archived records may share a unique value (spec 3.1 rule 2).
    // Issue 14: the published copy is archived with its entry; a copy in step with its draft stays so.
    const synced = hasDrafts(model) && (await inSync(trx, model, id));
    await repo.updateRow(trx, model, id, { deleted_at: now, deleted_tracker: `${now} #${id}`, updated_at: now, updated_by_id: authorOf(actor)?.id ?? null });
    if (hasDrafts(model)) await mirrorSoftDelete(trx, model, id, { deleted_at: now, deleted_tracker: `${now} #${id}`, ...(synced && { updated_at: now }) });
    const answer = { ...(await this.writeBack.read(trx, model, id, 'inclusive', unreadable)), updatedBy: updatedBy(actor) };
    await w.record(trx, 'delete', model, id, answer, 'delete', state, 'inclusive');
    return answer;
  }

  /** `index` as for removeOne. */
  private async recoverOne(trx: Knex.Transaction, model: ContentType, id: number, caller: Caller, w: Write, index: number | null): Promise<ApiRecord> {
    const { actor, unreadable } = caller;
    await this.mustExist(trx, model, id, 'exclusive', this.writeRule(model, caller));
    if (model.i18n) {
      const row = await loc.localeRow(trx, model, id);
      if (row) loc.refuseWithoutEntry(model, row, await loc.entryRows(trx, model, row.entry));
    }
    const state = await beforeAt(index, w, trx, 'recover', model, id, {}, 'recover');
    try {
      const synced = hasDrafts(model) && (await inSync(trx, model, id));
      const at = toIsoTimestamp(this.now());
      await repo.updateRow(trx, model, id, { deleted_at: null, deleted_tracker: NOT_DELETED, updated_at: at, updated_by_id: authorOf(actor)?.id ?? null });
      if (hasDrafts(model)) await mirrorSoftDelete(trx, model, id, { deleted_at: null, deleted_tracker: NOT_DELETED, ...(synced && { updated_at: at }) });
    } catch (e) {
      const err = this.translated(e, model);
      if (err instanceof ConflictError) {
        // spec 3.1: recovering into a taken unique value is a conflict; the record stays archived.
        throw new ConflictError(`cannot recover ${model.name} ${id}: an active record already holds its unique value`, err.details);
      }
      throw err instanceof AppError ? err : e;
    }
    const answer = { ...(await this.writeBack.read(trx, model, id, 'active', unreadable)), updatedBy: updatedBy(actor) };
    await annotate(trx, model, [answer], 'draft');
    await w.record(trx, 'recover', model, id, answer, 'recover', state, 'active');
    return answer;
  }
}
