/** ctx → parse/check → service → envelope; no SQL here. */
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { BadRequestError, ForbiddenError, UnauthorizedError } from '../errors/errors';
import { jsonAnswer } from '../http/json-answer';
import type { RequestState } from '../http/state';
import { isMultipart, readRecordForm } from '../media/form';
import type { IncomingFile, IntakeLimits } from '../media/intake';
import type { Authorizer, RecordAction } from '../plugin-api';
import { FIND_ONE_PARAMS, FIND_PARAMS, parseListQuery } from '../query/parse';
import type { ContentType } from '../registry/types';
import { bulkRecoverEnvelope, envelope, recoverEnvelope } from './envelope';
import type { RecordService } from './service';

export type RecordContext = Context & { state: RequestState; params: Record<string, string>; request: { body?: unknown } };

/** Checks `<model>.<action>` for the caller: 401 without a token, 403 without the permission. */
export async function requirePermission(authorizer: Authorizer | null, ctx: RecordContext, model: string, action: RecordAction): Promise<void> {
  if (!authorizer) return;
  if (await authorizer.can(ctx.state.actor, model, action)) return;
  if (!ctx.state.actor) throw new UnauthorizedError(`authentication required: ${model}.${action}`);
  throw new ForbiddenError(`missing permission ${model}.${action}`);
}

function recordId(ctx: RecordContext): number {
  const raw = ctx.params.id ?? '';
  if (!/^[1-9]\d{0,15}$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new BadRequestError(`"${raw}" is not a record id (a positive integer)`);
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
      const g = this.service.checkGrouped(model, parsed);
      await this.checkReads(ctx, model, g.reads, g.softDelete);
      await this.send(ctx, await this.service.findGrouped(g));
      return;
    }
    const q = this.service.check(model, parsed);
    await this.checkReads(ctx, model, q.reads, q.softDelete);
    await this.send(ctx, await this.service.find(q));
  }

  async findOne(ctx: RecordContext, model: ContentType): Promise<void> {
    const id = recordId(ctx);
    const q = this.service.check(model, parseListQuery(this.queryOf(ctx), FIND_ONE_PARAMS));
    await this.checkReads(ctx, model, q.reads, q.softDelete);
    await this.send(ctx, await this.service.findOne(q, id));
  }

  async create(ctx: RecordContext, model: ContentType): Promise<void> {
    await this.send(ctx, envelope(await this.withBody(ctx, (body, files) => this.service.create(model, body, ctx.state.actor, files))), true);
  }

  async createMany(ctx: RecordContext, model: ContentType): Promise<void> {
    await this.send(ctx, envelope(await this.service.createMany(model, ctx.request.body, ctx.state.actor)), true);
  }

  async update(ctx: RecordContext, model: ContentType, mode: 'put' | 'patch'): Promise<void> {
    const id = recordId(ctx);
    await this.send(ctx, envelope(await this.withBody(ctx, (body, files) => this.service.update(model, id, body, mode, ctx.state.actor, files))), true);
  }

  async remove(ctx: RecordContext, model: ContentType): Promise<void> {
    await this.send(ctx, envelope(await this.service.remove(model, recordId(ctx), ctx.state.actor)), true);
  }

  /** Spec 4.3: bulk delete answers a JSON array with one envelope per deleted record. */
  async removeMany(ctx: RecordContext, model: ContentType): Promise<void> {
    const records = await this.service.removeMany(model, ctx.request.body, ctx.state.actor);
    await this.send(ctx, records.map((r) => envelope(r)), true);
  }

  async recover(ctx: RecordContext, model: ContentType): Promise<void> {
    await this.send(ctx, recoverEnvelope(model.name, await this.service.recover(model, recordId(ctx), ctx.state.actor)), true);
  }

  async recoverMany(ctx: RecordContext, model: ContentType): Promise<void> {
    await this.send(ctx, bulkRecoverEnvelope(model.name, await this.service.recoverMany(model, ctx.request.body, ctx.state.actor)), true);
  }
}
