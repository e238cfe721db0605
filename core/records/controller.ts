/** ctx → parse/check → service → envelope; no SQL here. */
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { type CachedAnswer, type ResponseCache, scopeOf } from '../cache/response-cache';
import type { ReadKind } from '../cache/key';
import { ruledScope } from '../cache/ruled-scope';
import type { ListQuery } from '../query/ast';
import { BadRequestError, ForbiddenError, NotFoundError, UnauthorizedError } from '../errors/errors';
import { ifNoneMatchHits, READ_CACHE_CONTROL } from '../http/etag';
import { inPieces, jsonAnswer, SEND_CHUNK_BYTES } from '../http/json-answer';
import type { RequestState } from '../http/state';
import { isMultipart, readRecordForm } from '../media/form';
import type { IncomingFile, IntakeLimits } from '../media/intake';
import type { Authorizer } from '../plugin-api';
import { FIND_ONE_PARAMS, FIND_PARAMS, parseListQuery } from '../query/parse';
import { INT4_MAX } from '../registry/attribute-kinds';
import type { Attribute, ContentType } from '../registry/types';
import type { WriteMode } from '../validation/compile';
import { bulkRecoverEnvelope, envelope, recoverEnvelope } from './envelope';
import { both, RequestAccess } from './access';
import { type LocaleChoice, LOCALE_PARAM, readLocale } from './locales';
import type { Caller, ReadAccess, RecordService } from './service';
import { type Version, hasDrafts } from '../drafts/names';
import { STATUS_PARAM, takeStatus } from '../drafts/status';
import { clip } from '../errors/client-text';

/** The actions whose rules a read's answer depends on (the response cache keys on their variables). */
const READ_ACTIONS = ['find', 'findOne'] as const;
const DRAFT_READ_ACTIONS = [...READ_ACTIONS, 'findDrafts'] as const;

/** A read's rules, for the response cache: where they come from and which actions' rules it applied. */
interface ReadRules {
  readonly source: RequestAccess;
  readonly actions: readonly string[];
}

export type RecordContext = Context & { state: RequestState; params: Record<string, string>; request: { body?: unknown } };

/** Checks `<model>.<action>` for the caller: 401 without a token, 403 without the permission. */
export async function requirePermission(authorizer: Authorizer | null, ctx: RecordContext, model: string, action: string, why = ''): Promise<void> {
  if (!authorizer) return;
  if (await authorizer.can(ctx.state.actor, model, action)) return;
  if (!ctx.state.actor) throw new UnauthorizedError(`authentication required: ${model}.${action}${why}`);
  throw new ForbiddenError(`missing permission ${model}.${action}${why}`);
}

/** The body fields that write attribute `a` (a to-one relation is written as `<name>Id` / `<name>UserKey`). */
function bodyFields(a: Attribute): string[] {
  if (a.kind === 'relation' && a.idField) return [a.idField, ...(a.userKeyField ? [a.userKeyField] : [])];
  return [a.name];
}

function names(body: unknown, fields: readonly string[]): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && fields.some((f) => Object.prototype.hasOwnProperty.call(body, f));
}

function recordId(ctx: RecordContext, model: ContentType): number {
  const raw = ctx.params.id ?? '';
  if (!/^[1-9]\d{0,15}$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new BadRequestError(`"${clip(raw)}" is not a record id (a positive integer)`);
  // Ids are integer columns (32-bit on PostgreSQL): a larger id names no record, on both databases alike.
  if (Number(raw) > INT4_MAX) throw new NotFoundError(`no ${model.name} with id ${raw}`);
  return Number(raw);
}

function queryObject(q: unknown): Record<string, unknown> {
  return typeof q === 'object' && q !== null && !Array.isArray(q) ? (q as Record<string, unknown>) : {};
}

/** The query without `locale` (issue 14), for the list-query parser. */
function withoutLocale(q: Record<string, unknown>): Record<string, unknown> {
  if (!(LOCALE_PARAM in q)) return q;
  const { [LOCALE_PARAM]: _locale, ...rest } = q;
  return rest;
}

/** The parameters Find / FindOne take off the query before it is parsed (issue 14), for the parser's "known" list. */
function takenParams(model: ContentType): string[] {
  return [STATUS_PARAM, ...(model.i18n ? [LOCALE_PARAM] : [])];
}

export class RecordController {
  constructor(
    private readonly service: RecordService,
    private readonly authorizer: Authorizer | null,
    private readonly queryOf: (ctx: RecordContext) => unknown,
    /** Multipart uploads (issue 6); null: JSON bodies only. */
    private readonly uploads: IntakeLimits | null = null,
    /** Bytes of one answer (ANSWER_MAX_BYTES); 413 beyond. */
    private readonly answerMaxBytes: number = Number.POSITIVE_INFINITY,
    /** CACHE=memory|redis (issue 17); null: every read computed. */
    private readonly cache: ResponseCache | null = null,
  ) {}

  /** Serializes the answer here (bounded, yielding to other requests), so a 413 still goes out as JSON. */
  private async send(ctx: RecordContext, body: unknown, afterWrite = false): Promise<void> {
    const { buffers, bytes } = await jsonAnswer(body, this.answerMaxBytes, afterWrite);
    this.sendBytes(ctx, buffers, bytes);
  }

  /**
   * A Find/FindOne answer with its strong ETag (issue 17; README: Conditional reads): If-None-Match
   * naming it answers 304 without a body. Answers differ per caller's permissions: `Vary:
   * Authorization` and `private` keep shared caches from handing one caller's answer to another.
   */
  private async sendRead(ctx: RecordContext, body: unknown): Promise<void> {
    const { buffers, bytes, etag = '' } = await jsonAnswer(body, this.answerMaxBytes, false, true);
    // Without the cache a large answer goes out as the buffers it was made in (never copied into one).
    if (this.setReadHeaders(ctx, etag)) this.sendBytes(ctx, buffers, bytes);
  }

  private async serializeRead(body: unknown): Promise<CachedAnswer> {
    const { buffers, etag = '' } = await jsonAnswer(body, this.answerMaxBytes, false, true);
    return { etag, body: buffers.length === 1 ? buffers[0] : Buffer.concat(buffers) };
  }

  private sendAnswer(ctx: RecordContext, answer: CachedAnswer): void {
    if (this.setReadHeaders(ctx, answer.etag)) this.sendBytes(ctx, [answer.body], answer.body.length);
  }

  /** ETag, Cache-Control, Vary; false when If-None-Match names the tag (304 set, no body to send). */
  private setReadHeaders(ctx: RecordContext, etag: string): boolean {
    ctx.set('ETag', etag);
    ctx.set('Cache-Control', READ_CACHE_CONTROL);
    ctx.vary('Authorization');
    if (ifNoneMatchHits(ctx.get('If-None-Match') || undefined, etag)) {
      ctx.status = 304;
      ctx.body = null;
      return false;
    }
    return true;
  }

  /**
   * A read's answer, through the response cache when it is on and the caller's scope is known. Called
   * only after every permission check of the read has passed (a hit bypasses none of them).
   */
  private async cachedRead(
    ctx: RecordContext,
    read: { model: ContentType; kind: ReadKind; id: number | null; version: string; query: ListQuery; reads: readonly string[]; ruleReads: readonly string[] },
    rules: ReadRules | undefined,
    compute: () => Promise<unknown>,
  ): Promise<void> {
    // The rules applied are those of the model and the models it reads (a rule applies no rule inside it) …
    const scope = this.cache ? ruledScope(scopeOf(this.authorizer, ctx.state.actor), rules?.source, ctx.state.actor, [read.model.name, ...read.reads], rules?.actions) : null;
    if (!this.cache || !scope) return this.sendRead(ctx, await compute());
    // … but the answer depends on every model those rules walk through as well.
    this.sendAnswer(ctx, await this.cache.answer({ ...read, reads: [...read.reads, ...read.ruleReads], scope, raw: ctx.querystring }, async () => this.serializeRead(await compute())));
  }

  /**
   * A small answer is one buffer; a larger one goes out in pieces of at most SEND_CHUNK_BYTES (views, not
   * copies), so a client that reads slowly but steadily shows progress to HTTP_SEND_TIMEOUT with every piece.
   */
  private sendBytes(ctx: RecordContext, buffers: readonly Buffer[], bytes: number): void {
    ctx.type = 'application/json; charset=utf-8';
    if (buffers.length === 1 && bytes <= SEND_CHUNK_BYTES) {
      ctx.body = buffers[0];
      return;
    }
    ctx.body = Readable.from(inPieces(buffers));
    ctx.length = bytes;
  }

  /** The body and files of a write: a JSON body, or a multipart form read only now, after the permission check. */
  private async withBody<T>(ctx: RecordContext, fn: (body: unknown, files: readonly IncomingFile[]) => Promise<T>): Promise<T> {
    if (!this.uploads || !isMultipart(ctx)) return fn(ctx.request.body, []);
    const form = await readRecordForm(ctx, this.uploads);
    try {
      return await fn(form.body, form.files);
    } finally {
      await form.discard();
    }
  }

  /** Reading through relations or archived records needs more than the model's own permission (issue 3, Safety). */
  private async checkReads(ctx: RecordContext, model: ContentType, reads: readonly string[], scope: string): Promise<void> {
    for (const m of reads) await requirePermission(this.authorizer, ctx, m, 'find');
    if (scope !== 'active') await requirePermission(this.authorizer, ctx, model.name, 'recover');
  }

  /** The caller's row-level rules and field lists (issue 16); null: unrestricted, the fast path. */
  private async access(ctx: RecordContext): Promise<RequestAccess | null> {
    if (!this.authorizer?.access) return null;
    const view = await this.authorizer.access(ctx.state.actor, new Date());
    return view ? new RequestAccess(view, this.service.registry) : null;
  }

  /**
   * A read of `model` in `status` (the published view or the working copies, issue 14) as this caller may
   * make it (issue 16): the rules join the query, fields the caller may not read are private. A draft read
   * is bounded by the `findDrafts` rules of the draft-enabled models it reaches as well.
   */
  private async readAccess(ctx: RecordContext, model: ContentType, action: 'find' | 'findOne', status: Version): Promise<{ model: ContentType; access: ReadAccess; rules?: ReadRules }> {
    const base = this.service.registryFor(status);
    const viewed = base.get(model.name) ?? model;
    const a = await this.access(ctx);
    if (!a) return { model: viewed, access: { registry: base, scope: undefined } };
    const view = a.readView(viewed, action, base);
    const drafts = status === 'draft';
    return { model: view.model, access: { registry: view.registry, scope: a.rowScope(model.name, action, base, drafts) }, rules: { source: a, actions: drafts ? DRAFT_READ_ACTIONS : READ_ACTIONS } };
  }

  /** `locale=` of this request (issue 14): null when absent; 400 for a model without locales or an unknown code. */
  private locale(ctx: RecordContext, model: ContentType, allowAll: boolean): LocaleChoice {
    return readLocale(queryObject(this.queryOf(ctx)), model, this.service.locales, allowAll);
  }

  private localeCode(ctx: RecordContext, model: ContentType): string | null {
    return this.locale(ctx, model, false);
  }

  /**
   * Issue 14: `status=draft` reads the working copies of every draft-enabled model the query reaches,
   * and needs `<model>.findDrafts` on each; any other read runs on the published view.
   */
  private async checkDrafts(ctx: RecordContext, model: ContentType, reads: readonly string[], status: string): Promise<void> {
    if (status !== 'draft') return;
    for (const name of [model.name, ...reads]) {
      if (name === model.name ? hasDrafts(model) : hasDrafts(this.service.registryFor('draft').get(name))) {
        await requirePermission(this.authorizer, ctx, name, 'findDrafts', ' (status=draft reads drafts)');
      }
    }
  }

  async find(ctx: RecordContext, model: ContentType): Promise<void> {
    const raw = queryObject(this.queryOf(ctx));
    const locale = readLocale(raw, model, this.service.locales, true);
    const { status, query } = takeStatus(withoutLocale(raw));
    const parsed = parseListQuery(query, FIND_PARAMS, takenParams(model));
    const read = await this.readAccess(ctx, model, 'find', status);
    const version = `${status}|${locale ?? ''}`;
    if (parsed.group) {
      const g = this.service.groupInLocale(await this.service.checkGrouped(read.model, parsed, read.access), locale);
      await this.checkReads(ctx, model, g.reads, g.softDelete);
      await this.checkDrafts(ctx, model, g.reads, status);
      await this.cachedRead(ctx, { model, kind: 'grouped', id: null, version, query: parsed, reads: g.reads, ruleReads: g.ruleReads }, read.rules, () => this.service.findGrouped(g));
      return;
    }
    const q = this.service.inLocale(this.service.check(read.model, parsed, read.access), locale);
    await this.checkReads(ctx, model, q.reads, q.softDelete);
    await this.checkDrafts(ctx, model, q.reads, status);
    await this.cachedRead(ctx, { model, kind: 'find', id: null, version, query: parsed, reads: q.reads, ruleReads: q.ruleReads }, read.rules, () => this.service.find(q));
  }

  async findOne(ctx: RecordContext, model: ContentType): Promise<void> {
    const named = recordId(ctx, model);
    const raw = queryObject(this.queryOf(ctx));
    const locale = readLocale(raw, model, this.service.locales, false);
    const { status, query } = takeStatus(withoutLocale(raw));
    const parsed = parseListQuery(query, FIND_ONE_PARAMS, takenParams(model));
    const read = await this.readAccess(ctx, model, 'findOne', status);
    const q = this.service.check(read.model, parsed, read.access);
    await this.checkReads(ctx, model, q.reads, q.softDelete);
    await this.checkDrafts(ctx, model, q.reads, status);
    const id = await this.service.rowFor(read.model, named, locale, q.softDelete);
    await this.cachedRead(ctx, { model, kind: 'findOne', id, version: `${status}|${locale ?? ''}`, query: parsed, reads: q.reads, ruleReads: q.ruleReads }, read.rules, () => this.service.findOne(q, id));
  }

  /** Issue 14: `status=published` on a create publishes the new entries at once (needs `<model>.publish`). */
  private async publishAtOnce(ctx: RecordContext, model: ContentType): Promise<boolean> {
    const { status, given } = takeStatus(this.queryOf(ctx));
    if (!given || status === 'draft') return false;
    if (!hasDrafts(model)) throw new BadRequestError(`${model.name} has no draft & publish: status=published on a create is for draftAndPublish models`, { parameter: 'status' });
    await requirePermission(this.authorizer, ctx, model.name, 'publish', ' (status=published publishes at once)');
    return true;
  }

  /** POST /api/{model}/{id}/publish|unpublish and their bulk forms (issue 14). */
  async publish(ctx: RecordContext, model: ContentType, bulk: boolean, unpublish: boolean): Promise<void> {
    if (!hasDrafts(model)) throw new NotFoundError(`${model.name} has no draft & publish (YAML draftAndPublish: true)`);
    const ids = bulk ? ctx.request.body : recordId(ctx, model);
    const locale = this.locale(ctx, model, true);
    const access = await this.access(ctx);
    // README: `<model>.publish` guards publish and unpublish alike, so its rule (issue 16) bounds both.
    const records = (await this.service.publish(model, ids, await this.caller(ctx, model, 'publish', access), unpublish, locale)).map((r) => this.shown(access, model, r));
    await this.send(ctx, bulk ? envelope(records) : envelope(records[0]), true);
  }

  /**
   * The caller as a write needs it: its actor and the related models it may not `find`, whose records its
   * answer shows as `{ id }` alone and whose bad references it hears of only as "invalid reference".
   */
  private async caller(ctx: RecordContext, model: ContentType, action?: 'create' | 'update' | 'delete' | 'recover' | 'publish', access?: RequestAccess | null): Promise<Caller> {
    const unreadable = new Set<string>();
    const scope = action && access ? access.rowScope(model.name, action) : undefined;
    // A create may publish at once (status=published): the publish rule bounds the new record too.
    const publishScope = action === 'create' && access && hasDrafts(model) ? access.rowScope(model.name, 'publish') : undefined;
    if (this.authorizer) {
      if (!(await this.authorizer.can(ctx.state.actor, model.name, 'find'))) unreadable.add(model.name);
      for (const a of model.attributes) {
        if (a.kind !== 'relation' || unreadable.has(a.target)) continue;
        const find = access?.scope(a.target, 'find');
        if (!(await this.authorizer.can(ctx.state.actor, a.target, 'find'))) unreadable.add(a.target);
        // Under a row rule some of its records are unreadable, under a field list some of their fields: a write
        // answer shows none of them beyond `{ id }` (a populate would hide them).
        else if (find?.rows || find?.fields) unreadable.add(a.target);
        // A write answer shows a draft-enabled target as its working copy (issue 14): a draft, which only
        // `findDrafts` (without a rule narrowing it) may read; published reads never show it.
        else if (await this.hidesDrafts(ctx, a.target, access)) unreadable.add(a.target);
      }
    }
    return { actor: ctx.state.actor, unreadable, ...(scope?.root && { scope }), ...(publishScope?.root && { publishScope }) };
  }

  /** Whether the caller may not read every working copy (draft) of `model`, a draft-enabled model. */
  private async hidesDrafts(ctx: RecordContext, model: string, access: RequestAccess | null | undefined): Promise<boolean> {
    const target = this.service.registry.get(model);
    if (!target || !hasDrafts(target)) return false;
    if (!(await this.authorizer?.can(ctx.state.actor, model, 'findDrafts'))) return true;
    const drafts = access?.scope(model, 'findDrafts');
    return Boolean(drafts?.rows || drafts?.fields);
  }

  /** A write's answer without the fields the caller may not read (issue 16). */
  private shown<T>(access: RequestAccess | null, model: ContentType, record: T): T {
    return access ? (access.stripUnreadable(model, record as Record<string, unknown>) as T) : record;
  }

  /**
   * Writing an attribute that declares a `writeAction` needs `<model>.<writeAction>` as well (issue 13 item
   * 12: `user.roles` needs `user.assignRoles`, not just `user.update`). A body naming it writes it, and so
   * does every PUT (it sets each attribute it leaves out to its default).
   */
  private async checkGuarded(ctx: RecordContext, model: ContentType, bodies: readonly unknown[], mode: WriteMode): Promise<void> {
    for (const a of model.attributes) {
      if (a.writeAction === undefined || a.writable === false) continue;
      const fields = bodyFields(a);
      if (mode === 'put') await requirePermission(this.authorizer, ctx, model.name, a.writeAction, ` (a PUT writes ${fields[0]}; PATCH leaves it unchanged)`);
      else if (bodies.some((b) => names(b, fields))) await requirePermission(this.authorizer, ctx, model.name, a.writeAction, ` (to write ${fields[0]})`);
    }
  }

  /**
   * Issue 16: a write that writes an attribute guarded by a `writeAction` (`user.roles`: `user.assignRoles`)
   * is bounded by that permission's row rule as well: a rule `user.assignRoles` on `{username: {$startsWith:
   * "intern"}}` lets its holder write the roles of those accounts only (update: 404 for another, a create or
   * update leaving the record outside it: 403), where it used to allow every account. A PUT writes them all.
   */
  private narrowed(caller: Caller, access: RequestAccess | null, model: ContentType, action: 'create' | 'update', bodies: readonly unknown[], mode: WriteMode): Caller {
    if (!access) return caller;
    let root = caller.scope?.root ?? null;
    for (const a of model.attributes) {
      if (a.writeAction === undefined || a.writable === false) continue;
      if (mode !== 'put' && !bodies.some((b) => names(b, bodyFields(a)))) continue;
      root = both(root, access.rowScope(model.name, a.writeAction).root);
    }
    if (root === (caller.scope?.root ?? null)) return caller;
    return { ...caller, scope: { ...access.rowScope(model.name, action), root } };
  }

  async create(ctx: RecordContext, model: ContentType): Promise<void> {
    const access = await this.access(ctx);
    const caller = await this.caller(ctx, model, 'create', access);
    await this.send(
      ctx,
      envelope(
        this.shown(
          access,
          model,
          await this.withBody(ctx, async (body, files) => {
            await this.checkGuarded(ctx, model, [body], 'create');
            access?.checkWritable(model, 'create', [body], false, files.map((f) => f.part));
            return this.service.create(model, body, this.narrowed(caller, access, model, 'create', [body], 'create'), files, this.localeCode(ctx, model), await this.publishAtOnce(ctx, model));
          }),
        ),
      ),
      true,
    );
  }

  async createMany(ctx: RecordContext, model: ContentType): Promise<void> {
    const body = ctx.request.body;
    const access = await this.access(ctx);
    await this.checkGuarded(ctx, model, Array.isArray(body) ? body : [], 'create');
    access?.checkWritable(model, 'create', Array.isArray(body) ? body : [], false);
    const locale = this.localeCode(ctx, model);
    const publish = await this.publishAtOnce(ctx, model);
    const caller = this.narrowed(await this.caller(ctx, model, 'create', access), access, model, 'create', Array.isArray(body) ? body : [], 'create');
    const records = await this.service.createMany(model, body, caller, locale, publish);
    await this.send(ctx, envelope(records.map((r) => this.shown(access, model, r))), true);
  }

  async update(ctx: RecordContext, model: ContentType, mode: 'put' | 'patch'): Promise<void> {
    const id = await this.service.rowFor(model, recordId(ctx, model), this.localeCode(ctx, model), 'active');
    const access = await this.access(ctx);
    const caller = await this.caller(ctx, model, 'update', access);
    await this.send(
      ctx,
      envelope(
        this.shown(
          access,
          model,
          await this.withBody(ctx, async (body, files) => {
            await this.checkGuarded(ctx, model, [body], mode);
            access?.checkWritable(model, 'update', [body], mode === 'put', files.map((f) => f.part));
            return this.service.update(model, id, body, mode, this.narrowed(caller, access, model, 'update', [body], mode), files);
          }),
        ),
      ),
      true,
    );
  }

  async remove(ctx: RecordContext, model: ContentType): Promise<void> {
    const access = await this.access(ctx);
    const locale = this.locale(ctx, model, true);
    const record = await this.service.remove(model, recordId(ctx, model), await this.caller(ctx, model, 'delete', access), locale);
    await this.send(ctx, envelope(this.shown(access, model, record)), true);
  }

  /** `POST /api/{model}/{id}/localizations?locale=<code>` (issue 14): the entry in another locale. */
  async createLocalization(ctx: RecordContext, model: ContentType): Promise<void> {
    const id = recordId(ctx, model);
    const locale = this.localeCode(ctx, model);
    if (takeStatus(this.queryOf(ctx)).given) {
      throw new BadRequestError('status= is not taken here: a new localization is a draft (on draftAndPublish models); publish it with POST …/{id}/publish?locale=<code>', { parameter: STATUS_PARAM });
    }
    const body = ctx.request.body;
    await this.checkGuarded(ctx, model, [body], 'create');
    const access = await this.access(ctx);
    access?.checkWritable(model, 'create', [body], false);
    const record = await this.service.createLocalization(model, id, body, this.narrowed(await this.caller(ctx, model, 'create', access), access, model, 'create', [body], 'create'), locale);
    await this.send(ctx, envelope(this.shown(access, model, record)), true);
  }

  /**
   * Spec 4.3: bulk delete answers a JSON array with one envelope per deleted record: per id of the body, the
   * record it names (`locale=` as on a single delete, issue 14: for each id).
   */
  async removeMany(ctx: RecordContext, model: ContentType): Promise<void> {
    const access = await this.access(ctx);
    const locale = this.locale(ctx, model, true);
    const records = await this.service.removeMany(model, ctx.request.body, await this.caller(ctx, model, 'delete', access), locale);
    await this.send(ctx, records.map((r) => envelope(this.shown(access, model, r))), true);
  }

  async recover(ctx: RecordContext, model: ContentType): Promise<void> {
    const access = await this.access(ctx);
    const locale = this.locale(ctx, model, true);
    const record = await this.service.recover(model, recordId(ctx, model), await this.caller(ctx, model, 'recover', access), locale);
    await this.send(ctx, recoverEnvelope(model.name, this.shown(access, model, record)), true);
  }

  async recoverMany(ctx: RecordContext, model: ContentType): Promise<void> {
    const access = await this.access(ctx);
    const locale = this.locale(ctx, model, true);
    const records = await this.service.recoverMany(model, ctx.request.body, await this.caller(ctx, model, 'recover', access), locale);
    await this.send(ctx, bulkRecoverEnvelope(model.name, records.map((r) => this.shown(access, model, r))), true);
  }
}
