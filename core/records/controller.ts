/** ctx → parse/check → service → envelope; no SQL here. */
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { BadRequestError, ForbiddenError, NotFoundError, UnauthorizedError } from '../errors/errors';
import { ifNoneMatchHits, READ_CACHE_CONTROL } from '../http/etag';
import { jsonAnswer } from '../http/json-answer';
import type { RequestState } from '../http/state';
import { isMultipart, readRecordForm } from '../media/form';
import type { IncomingFile, IntakeLimits } from '../media/intake';
import type { Authorizer } from '../plugin-api';
import { FIND_ONE_PARAMS, FIND_PARAMS, parseListQuery } from '../query/parse';
import { INT4_MAX } from '../registry/attribute-kinds';
import type { Attribute, ContentType } from '../registry/types';
import type { WriteMode } from '../validation/compile';
import { bulkRecoverEnvelope, envelope, recoverEnvelope } from './envelope';
import type { Caller, RecordService } from './service';

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
  if (!/^[1-9]\d{0,15}$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new BadRequestError(`"${raw}" is not a record id (a positive integer)`);
  // Ids are integer columns (32-bit on PostgreSQL): a larger id names no record, on both databases alike.
  if (Number(raw) > INT4_MAX) throw new NotFoundError(`no ${model.name} with id ${raw}`);
  return Number(raw);
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
    ctx.set('ETag', etag);
    ctx.set('Cache-Control', READ_CACHE_CONTROL);
    ctx.vary('Authorization');
    if (ifNoneMatchHits(ctx.get('If-None-Match') || undefined, etag)) {
      ctx.status = 304;
      ctx.body = null;
      return;
    }
    this.sendBytes(ctx, buffers, bytes);
  }

  private sendBytes(ctx: RecordContext, buffers: readonly Buffer[], bytes: number): void {
    ctx.type = 'application/json; charset=utf-8';
    if (buffers.length === 1) {
      ctx.body = buffers[0];
      return;
    }
    ctx.body = Readable.from(buffers);
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

  async find(ctx: RecordContext, model: ContentType): Promise<void> {
    const parsed = parseListQuery(this.queryOf(ctx), FIND_PARAMS);
    if (parsed.group) {
      const g = await this.service.checkGrouped(model, parsed);
      await this.checkReads(ctx, model, g.reads, g.softDelete);
      await this.sendRead(ctx, await this.service.findGrouped(g));
      return;
    }
    const q = this.service.check(model, parsed);
    await this.checkReads(ctx, model, q.reads, q.softDelete);
    await this.sendRead(ctx, await this.service.find(q));
  }

  async findOne(ctx: RecordContext, model: ContentType): Promise<void> {
    const id = recordId(ctx, model);
    const q = this.service.check(model, parseListQuery(this.queryOf(ctx), FIND_ONE_PARAMS));
    await this.checkReads(ctx, model, q.reads, q.softDelete);
    await this.sendRead(ctx, await this.service.findOne(q, id));
  }

  /**
   * The caller as a write needs it: its actor and the related models it may not `find`, whose records its
   * answer shows as `{ id }` alone and whose bad references it hears of only as "invalid reference".
   */
  private async caller(ctx: RecordContext, model: ContentType): Promise<Caller> {
    const unreadable = new Set<string>();
    if (this.authorizer) {
      if (!(await this.authorizer.can(ctx.state.actor, model.name, 'find'))) unreadable.add(model.name);
      for (const a of model.attributes) {
        if (a.kind !== 'relation' || unreadable.has(a.target)) continue;
        if (!(await this.authorizer.can(ctx.state.actor, a.target, 'find'))) unreadable.add(a.target);
      }
    }
    return { actor: ctx.state.actor, unreadable };
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

  async create(ctx: RecordContext, model: ContentType): Promise<void> {
    const caller = await this.caller(ctx, model);
    await this.send(
      ctx,
      envelope(
        await this.withBody(ctx, async (body, files) => {
          await this.checkGuarded(ctx, model, [body], 'create');
          return this.service.create(model, body, caller, files);
        }),
      ),
      true,
    );
  }

  async createMany(ctx: RecordContext, model: ContentType): Promise<void> {
    const body = ctx.request.body;
    await this.checkGuarded(ctx, model, Array.isArray(body) ? body : [], 'create');
    await this.send(ctx, envelope(await this.service.createMany(model, body, await this.caller(ctx, model))), true);
  }

  async update(ctx: RecordContext, model: ContentType, mode: 'put' | 'patch'): Promise<void> {
    const id = recordId(ctx, model);
    const caller = await this.caller(ctx, model);
    await this.send(
      ctx,
      envelope(
        await this.withBody(ctx, async (body, files) => {
          await this.checkGuarded(ctx, model, [body], mode);
          return this.service.update(model, id, body, mode, caller, files);
        }),
      ),
      true,
    );
  }

  async remove(ctx: RecordContext, model: ContentType): Promise<void> {
    await this.send(ctx, envelope(await this.service.remove(model, recordId(ctx, model), await this.caller(ctx, model))), true);
  }

  /** Spec 4.3: bulk delete answers a JSON array with one envelope per deleted record. */
  async removeMany(ctx: RecordContext, model: ContentType): Promise<void> {
    const records = await this.service.removeMany(model, ctx.request.body, await this.caller(ctx, model));
    await this.send(ctx, records.map((r) => envelope(r)), true);
  }

  async recover(ctx: RecordContext, model: ContentType): Promise<void> {
    await this.send(ctx, recoverEnvelope(model.name, await this.service.recover(model, recordId(ctx, model), await this.caller(ctx, model))), true);
  }

  async recoverMany(ctx: RecordContext, model: ContentType): Promise<void> {
    await this.send(ctx, bulkRecoverEnvelope(model.name, await this.service.recoverMany(model, ctx.request.body, await this.caller(ctx, model))), true);
  }
}
