/**
 * What every record write does besides the write (issue 15): `before*` hooks inside its transaction,
 * one outbox event per record in the same transaction, then, after the commit, the event signal and
 * the `after*` hooks. A write that fails or rolls back runs no after hook and leaves no event.
 */
import type { Knex } from 'knex';
import type { EventPipeline } from '../events/pipeline';
import type { RecordEventType } from '../events/types';
import { eventActor } from '../events/pipeline';
import type { HookRunner } from '../hooks/runner';
import type { BeforeContext, WriteKind } from '../hooks/types';
import type { Actor } from '../plugin-api';
import type { SoftDeleteScope } from '../query/ast';
import type { CheckedQuery } from '../query/checked';
import { hasDrafts } from '../drafts/names';
import type { ContentType } from '../registry/types';
import type { ApiRecord } from './serializer';

/** The record as FindOne answers it, read in the write's transaction (private fields never). */
export type EventRecordReader = (trx: Knex.Transaction, model: ContentType, id: number, scope: SoftDeleteScope) => Promise<ApiRecord | null>;

/** FindOne's checked query without parameters, for `model`. */
export type FindOneShape = (model: ContentType) => CheckedQuery;

/**
 * The event's record taken from the write's answer, when that is FindOne's answer without parameters:
 * FindOne then populates nothing and attaches no media, so its record is its default fields, each
 * serialized from the row as the answer serialized it (the answer was read or RETURNed in the same
 * transaction, after the change). The answer's extras tailored to its caller (populated relations, a
 * relation shown as `{ id }`, createdBy/updatedBy, media) are left out; private fields are never among
 * the default fields. What FindOne adds to every record of its model is kept: `localizations` (i18n
 * models) and `_status` / `_hasUnpublishedChanges` (draft-enabled ones). Null when FindOne would populate
 * something or the answer lacks a field (read it).
 */
export function recordFromAnswer(findOne: CheckedQuery, answer: ApiRecord): ApiRecord | null {
  if (findOne.populate.length > 0 || findOne.populateMedia.length > 0) return null;
  const record: ApiRecord = {};
  for (const name of [...findOne.select.map((f) => f.name), ...answerExtras(findOne.model)]) {
    if (!Object.prototype.hasOwnProperty.call(answer, name)) return null;
    record[name] = answer[name];
  }
  return record;
}

/** The keys FindOne adds to each record of `model` besides its fields (core/records/locales.ts, core/drafts/annotate.ts). */
function answerExtras(model: ContentType): string[] {
  return [...(model.i18n ? ['localizations'] : []), ...(hasDrafts(model) ? ['_status', '_hasUnpublishedChanges'] : [])];
}

/** The event type of each kind of write. */
export const EVENT_OF: Record<WriteKind, RecordEventType> = {
  create: 'record.create',
  update: 'record.update',
  delete: 'record.delete',
  recover: 'record.recover',
  publish: 'record.publish',
  unpublish: 'record.unpublish',
};

export class WriteEffects {
  constructor(
    private readonly events: EventPipeline | null,
    private readonly hooks: HookRunner | null,
    readonly read: EventRecordReader,
    private readonly findOneShape: FindOneShape | null = null,
  ) {}

  /** The event's record: from the write's answer when it is FindOne's (no second read), else read in `scope`. */
  async eventRecord(trx: Knex.Transaction, model: ContentType, id: number, scope: SoftDeleteScope, answer: ApiRecord): Promise<ApiRecord | null> {
    const fromAnswer = this.findOneShape ? recordFromAnswer(this.findOneShape(model), answer) : null;
    return fromAnswer ?? this.read(trx, model, id, scope);
  }

  /** Must writes run in a transaction (events or hooks to run in it)? */
  get transactional(): boolean {
    return this.events !== null || this.hooks !== null;
  }

  start(actor: Actor | null): Write {
    return new Write(this, this.events, this.hooks, actor);
  }
}

interface Done {
  readonly kind: WriteKind;
  readonly model: string;
  readonly id: number;
  readonly record: ApiRecord;
  readonly mode: BeforeContext['mode'];
  readonly state: Record<string, unknown>;
}

/** One write call (one transaction; a bulk call covers several records). */
export class Write {
  private readonly done: Done[] = [];
  private appended = false;

  constructor(
    private readonly effects: WriteEffects,
    private readonly events: EventPipeline | null,
    private readonly hooks: HookRunner | null,
    private readonly actor: Actor | null,
  ) {}

  /** Runs the `before*` hooks (they may change `data`, or refuse); the state to hand to `record`. */
  async before(trx: Knex.Transaction, kind: WriteKind, model: ContentType, id: number | null, data: Record<string, unknown>, mode: BeforeContext['mode']): Promise<Record<string, unknown>> {
    const state: Record<string, unknown> = {};
    if (this.hooks?.has(kind, model.name)) await this.hooks.before(kind, { model: model.name, id, data, mode, actor: this.actor, trx, state });
    return state;
  }

  /** The event's record now, from `answer` (the record as the write answers it now) or read (a hard delete takes it before the row goes). */
  payload(trx: Knex.Transaction, model: ContentType, id: number, scope: SoftDeleteScope, answer: ApiRecord): Promise<ApiRecord | null> {
    return this.effects.eventRecord(trx, model, id, scope, answer);
  }

  /**
   * After the record's write, still in the transaction: appends its event (its record read in `scope`,
   * or `payload` read earlier) and remembers it for the after hooks.
   */
  async record(trx: Knex.Transaction, kind: WriteKind, model: ContentType, id: number, answer: ApiRecord, mode: BeforeContext['mode'], state: Record<string, unknown>, scope: SoftDeleteScope, payload?: ApiRecord | null): Promise<void> {
    if (this.events) await this.append(this.events, trx, kind, model, id, payload !== undefined ? payload : await this.effects.eventRecord(trx, model, id, scope, answer));
    this.done.push({ kind, model: model.name, id, record: answer, mode, state });
  }

  /**
   * The event of a record the write changed besides the one it names (an i18n entry's other locale rows
   * take its shared values; a hard delete's foreign keys remove or set null others: cascade-events.ts), its
   * record `record`, or read now in `scope`. No hooks run for it: they run for the records the call writes.
   */
  async alsoChanged(trx: Knex.Transaction, kind: WriteKind, model: ContentType, id: number, scope: SoftDeleteScope, record?: ApiRecord | null): Promise<void> {
    if (this.events) await this.append(this.events, trx, kind, model, id, record !== undefined ? record : await this.effects.read(trx, model, id, scope));
  }

  /** Does this write append events (an event pipeline is there)? */
  get announcing(): boolean {
    return this.events !== null;
  }

  /** Record `id` as FindOne answers it (in `scope`), read now in the write's transaction: an event's record. */
  read(trx: Knex.Transaction, model: ContentType, id: number, scope: SoftDeleteScope): Promise<ApiRecord | null> {
    return this.effects.read(trx, model, id, scope);
  }

  /** Appends the one event of record `id` (in the write's transaction), by this write's actor. */
  private async append(events: EventPipeline, trx: Knex.Transaction, kind: WriteKind, model: ContentType, id: number, record: ApiRecord | null): Promise<void> {
    await events.append(trx, [{ type: EVENT_OF[kind], model: model.name, recordId: id, actor: eventActor(this.actor), record }]);
    this.appended = true;
  }

  /** After the commit: the signal, then the after hooks (their failures are logged, the write stands). */
  async committed(): Promise<void> {
    if (this.appended) this.events?.committed();
    if (!this.hooks) return;
    for (const d of this.done) {
      if (this.hooks.has(d.kind, d.model)) await this.hooks.after(d.kind, { model: d.model, id: d.id, record: d.record, mode: d.mode, actor: this.actor, state: d.state });
    }
  }
}
