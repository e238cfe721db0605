/**
 * What a hard delete's foreign keys do to other records (relations' `onDelete: cascade | set null`,
 * database/schema/desired.ts), so that the delete announces them (issue 15: every committed record change
 * emits one event, in the change's transaction; core/events/README.md). The database does the change;
 * this file finds, before the DELETE, the rows it will remove or set null, transitively, and appends their
 * events after it. Which links matter is decided from the registry once, at boot: a delete of a model that
 * nothing announced depends on costs no statement.
 */
import type { Knex } from 'knex';
import type { Dialect } from '../../database/dialects/dialect';
import type { EventPipeline } from '../events/pipeline';
import type { EventActor } from '../events/types';
import type { ForeignKeyEvents } from '../plugin-api';
import type { SoftDeleteScope } from '../query/ast';
import { type ContentType, NOT_DELETED, type Registry } from '../registry/types';
import type { ApiRecord } from './serializer';
import { EVENT_OF, type Write } from './write-effects';

/**
 * What finding and announcing the fallout needs of a write: the record service's `Write` (write-effects.ts),
 * or, for a plugin's own delete, `pipelineWrite` below.
 */
export type FalloutWrite = Pick<Write, 'announcing' | 'read' | 'alsoChanged'>;

/** Ids per `WHERE … IN` list (well below every database's bound on bindings). */
const IN_LIST = 500;

/** A to-one link whose foreign key the database acts on when the row it points at is deleted. */
interface Dependent {
  /** The model holding the foreign key. */
  readonly model: ContentType;
  readonly column: string;
  readonly onDelete: 'cascade' | 'set null';
}

/** A model whose records are announced: FindOne answers them (an `api: false` model has no record API and no record events). */
function announced(model: ContentType): boolean {
  return model.api;
}

/**
 * The dependents worth reading, per target model name: a cascade into an announced model or into one whose
 * own dependents are worth reading (the chain), and a set null FindOne shows (`<name>Id`; a private link
 * changes no answer) on an announced model. A fixpoint over the registry: chains and cycles included.
 */
const plans = new WeakMap<Registry, Map<string, Dependent[]>>();

/** The plan of `registry`, made once: boot's plugin-facing ForeignKeyEvents and every RecordService share it. */
function plannedDependents(registry: Registry): Map<string, Dependent[]> {
  let plan = plans.get(registry);
  if (!plan) {
    plan = dependentsOf(registry);
    plans.set(registry, plan);
  }
  return plan;
}

function dependentsOf(registry: Registry): Map<string, Dependent[]> {
  const all: (Dependent & { readonly target: string; readonly shown: boolean })[] = [];
  for (const model of registry.contentTypes) {
    for (const a of model.attributes) {
      if (a.kind !== 'relation' || !a.owner || !a.column || a.onDelete === 'restrict') continue;
      all.push({ model, column: a.column, onDelete: a.onDelete, target: a.target, shown: !a.private });
    }
  }
  const out = new Map<string, Dependent[]>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const d of all) {
      const kept = out.get(d.target) ?? [];
      if (kept.some((k) => k.model === d.model && k.column === d.column)) continue;
      const matters = d.onDelete === 'cascade' ? announced(d.model) || out.has(d.model.name) : announced(d.model) && d.shown;
      if (!matters) continue;
      out.set(d.target, [...kept, { model: d.model, column: d.column, onDelete: d.onDelete }]);
      grew = true;
    }
  }
  return out;
}

/** Rows of one model, in the order found; `active`: those FindOne answers (archived rows are announced by nothing). */
interface Rows {
  readonly model: ContentType;
  readonly ids: Set<number>;
  readonly active: Set<number>;
}

/** What one hard delete's foreign keys change besides the row it names: read before the DELETE, announced after it. */
export class Fallout {
  constructor(
    /** Rows the cascade removes (announced ones with their records as they were, read before the DELETE). */
    private readonly gone: readonly { readonly model: ContentType; readonly id: number; readonly record: ApiRecord | null }[],
    /** Rows whose link is set null and that stay. */
    private readonly nulled: readonly { readonly model: ContentType; readonly id: number }[],
  ) {}

  /**
   * After the DELETE, in its transaction: a `record.delete` per removed row (its record as it was), then a
   * `record.update` per row set null (its record now), per model in the order the chain reaches it, ids ascending.
   */
  async announce(trx: Knex.Transaction, w: FalloutWrite): Promise<void> {
    for (const g of this.gone) await w.alsoChanged(trx, 'delete', g.model, g.id, 'active', g.record);
    for (const n of this.nulled) await w.alsoChanged(trx, 'update', n.model, n.id, 'active');
  }
}

export class CascadeEvents {
  private readonly dependents: Map<string, Dependent[]>;

  constructor(
    registry: Registry,
    private readonly dialect: Dialect,
  ) {
    this.dependents = plannedDependents(registry);
  }

  /** Does a hard delete of `model` change announced records through its foreign keys? (decided at boot) */
  has(model: ContentType): boolean {
    return this.dependents.has(model.name);
  }

  /**
   * Before the hard delete of `model` rows `ids` (inside its transaction, the rows locked): every row its foreign
   * keys will remove or set null, the chain followed (a removed row's own dependents, and so on), the removed
   * ones' records read now. The rows found are locked (FOR UPDATE where the database has row locks), so no
   * link to them appears before the DELETE that the DELETE would change unannounced. Null: nothing to announce.
   */
  async before(trx: Knex.Transaction, w: FalloutWrite, model: ContentType, ids: readonly number[]): Promise<Fallout | null> {
    if (!w.announcing || !this.has(model)) return null;
    const gone = new Map<string, Rows>([[model.name, { model, ids: new Set(ids), active: new Set() }]]);
    const nulled = new Map<string, Rows>();
    let frontier: { model: ContentType; ids: number[] }[] = [{ model, ids: [...ids] }];
    while (frontier.length > 0) {
      const next: typeof frontier = [];
      for (const f of frontier) {
        for (const d of this.dependents.get(f.model.name) ?? []) {
          const found = await this.linked(trx, d, f.ids);
          const into = d.onDelete === 'cascade' ? gone : nulled;
          let rows = into.get(d.model.name);
          if (!rows) into.set(d.model.name, (rows = { model: d.model, ids: new Set(), active: new Set() }));
          const fresh: number[] = [];
          for (const r of found) {
            if (rows.ids.has(r.id)) continue;
            rows.ids.add(r.id);
            if (r.active && announced(d.model)) rows.active.add(r.id);
            fresh.push(r.id);
          }
          if (d.onDelete === 'cascade' && fresh.length > 0) next.push({ model: d.model, ids: fresh });
        }
      }
      frontier = next;
    }
    const records: { model: ContentType; id: number; record: ApiRecord | null }[] = [];
    for (const rows of gone.values()) {
      for (const id of ascending(rows.active)) records.push({ model: rows.model, id, record: await w.read(trx, rows.model, id, 'active') });
    }
    const stay: { model: ContentType; id: number }[] = [];
    for (const rows of nulled.values()) {
      const removed = gone.get(rows.model.name)?.ids;
      for (const id of ascending(rows.active)) if (!removed?.has(id)) stay.push({ model: rows.model, id });
    }
    return records.length > 0 || stay.length > 0 ? new Fallout(records, stay) : null;
  }

  /** The rows of `d.model` whose link `d.column` points at one of `ids` (archived ones too: the database acts on them alike). */
  private async linked(trx: Knex.Transaction, d: Dependent, ids: readonly number[]): Promise<{ id: number; active: boolean }[]> {
    const out: { id: number; active: boolean }[] = [];
    for (let i = 0; i < ids.length; i += IN_LIST) {
      const qb = trx(d.model.table).select('id', 'deleted_tracker').whereIn(d.column, ids.slice(i, i + IN_LIST)).orderBy('id');
      if (this.dialect.rowLocks) qb.forUpdate();
      for (const r of (await qb) as { id: number | string; deleted_tracker: string }[]) out.push({ id: Number(r.id), active: r.deleted_tracker === NOT_DELETED });
    }
    return out;
  }
}

/**
 * A plugin's own hard delete (PluginDeps.foreignKeyEvents): the same fallout as the record service's deletes,
 * its events appended through `events` by `actor`, the records read as FindOne answers them (`events.recordOf`).
 * Example (the identity plugin's API token delete, api-tokens.ts):
 * `const f = await fk.beforeDelete(trx, 'api-token', [id], actor); await trx(table).where('id', id).del(); await f?.announce(trx);`
 */
export function foreignKeyEventsOf(registry: Registry, dialect: Dialect, events: EventPipeline): ForeignKeyEvents {
  const cascades = new CascadeEvents(registry, dialect);
  return {
    async beforeDelete(trx, name, ids, actor) {
      const model = registry.get(name);
      if (!model || !cascades.has(model)) return null;
      const w = pipelineWrite(events, actor);
      const fallout = await cascades.before(trx, w, model, ids);
      return fallout && { announce: (t: Knex.Transaction) => fallout.announce(t, w) };
    },
  };
}

/** A FalloutWrite over the event pipeline alone (no hooks run for fallout rows: they never do). */
function pipelineWrite(events: EventPipeline, actor: EventActor | null): FalloutWrite {
  // The rows read are active ones (FindOne answers no other), so the pipeline's reader (archived rows too) reads the same record.
  const read = async (trx: Knex.Transaction, model: ContentType, id: number, _scope: SoftDeleteScope): Promise<ApiRecord | null> => events.recordOf(trx, model.name, id);
  return {
    announcing: true,
    read,
    async alsoChanged(trx, kind, model, id, scope, record) {
      const payload = record !== undefined ? record : await read(trx, model, id, scope);
      await events.append(trx, [{ type: EVENT_OF[kind], model: model.name, recordId: id, actor, record: payload }]);
    },
  };
}

function ascending(ids: ReadonlySet<number>): number[] {
  return [...ids].sort((a, b) => a - b);
}
