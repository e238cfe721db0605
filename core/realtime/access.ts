/**
 * What one stream's caller may see of an event, decided at send time (issue 15, Realtime):
 * - `find` on the event's model (and on every model its filters reach), asked of the Authorizer, the
 *   entry point every record read goes through (records/controller.ts requirePermission);
 * - its `filters[...]`, checked by core/query exactly as Find checks them, and judged on the version of
 *   the record the event carries: in memory on its own fields (snapshot-match.ts), else in SQL against
 *   the row pinned to that version (match.ts: `SELECT id … WHERE id = ? AND <filter>` through the Find
 *   compiler), so a filter means here what it means on Find;
 * - the record without what the caller may not read (private attributes, fields outside its field list).
 *
 * Row-level rules and field lists (issue 16, the `rules` branch) come through the same Authorizer:
 * when it offers `access(actor, now)` (its AccessView), the rule of `<model>.find` is AND-ed to the
 * stream's filter (and, on a draft-enabled model, the rule of `<model>.findDrafts`) and the field list
 * restricts the record and what the filter may name, as Find does; a relation filter reads each
 * related model through its own find rule and field list (RequestAccess, as Find's ReadAccess).
 * That method is looked up structurally here, so the rules apply to streams as soon as it exists.
 */
import { hasDrafts } from '../drafts/names';
import { publishedView } from '../drafts/view';
import { BadRequestError } from '../errors/errors';
// Attributes outside the field list become private: Find's checker then refuses to filter on them.
import { RequestAccess } from '../records/access';
import type { AccessView, Actor, Authorizer } from '../plugin-api';
import { emptyListQuery, type FilterNode, type ListQuery } from '../query/ast';
import type { RowScope } from '../query/check';
import type { CheckedQuery } from '../query/checked';
import { parseFilters } from '../query/parse';
import type { ContentType, Registry } from '../registry/types';

/** The rules branch's AccessView (plugin-api `Authorizer.access`). */
type RuleView = AccessView;
type RuleAuthorizer = Authorizer & { access?(actor: Actor | null, now: Date): Promise<RuleView | null> };

/** What a check runs against under rules: the registry as the caller may read it, and its row rules (as Find's ReadAccess). */
export interface CheckAccess {
  readonly registry: Registry;
  readonly scope?: RowScope;
}

/**
 * Checks a ListQuery against a model as Find does (RecordService.check), on the working copies
 * (`draft`) or on the published view of the registry (`published`: relation hops into draft-enabled
 * models read their published entries); `access`: the caller's view of that registry (field lists, rules).
 */
export type QueryChecker = (model: ContentType, q: ListQuery, version: 'draft' | 'published', access?: CheckAccess) => CheckedQuery;

/**
 * The view a stream's filter reads, as Find's default does: published entries. A draft-enabled
 * model's own events carry its working copy (findDrafts holders only), so its filter reads working copies.
 */
const versionOf = (model: ContentType): 'draft' | 'published' => (hasDrafts(model) ? 'draft' : 'published');

/** One model of a stream, as its caller may see it now. */
export interface ModelView {
  readonly allowed: boolean;
  /** The checked filter (the stream's and the caller's rule), or null: every record. */
  readonly query: CheckedQuery | null;
  /** Identifies `query` across streams: streams with the same key share one SQL check per event. */
  readonly key: string;
  /**
   * `query` that also asks the row to be the version an event carries (its `updatedAt`): the check reads
   * the row as it is at send time, and the event's record is judged, not a later version of the row. A
   * record that left the rule (or filter) and came back since its event would otherwise let that event (the
   * record outside it) through. A row changed since has a later event of its own, checked in its turn.
   * Used with a rule, and for a filter that cannot be judged on the event's record in memory
   * (snapshot-match.ts: a relation hop, say). Null without a filter or rule.
   */
  readonly pinned: ((updatedAt: string) => CheckedQuery) | null;
  /** Attributes the caller may read (null: all but private ones). */
  readonly fields: ReadonlySet<string> | null;
  /** Not allowed because the filter does not check against the model as the caller may read it (connect: 400, not 403). */
  readonly badFilter?: boolean;
  /** Not allowed: the permission the caller lacks (`note.find`, `writer.find` for a filter reaching writer, `article.findDrafts`). */
  readonly missing?: string;
  /** With a row rule of the caller's (`pinned` then also carries the rule). */
  readonly ruled?: boolean;
}

/** A model the caller may not stream, and the permission it lacks. */
export interface Refusal {
  readonly model: string;
  readonly missing: string;
}

/** Pinned checks (ModelView.pinned) kept per registry: one per filter key and record version. */
const PINNED_KEPT = 1_000;
const pinnedByRegistry = new WeakMap<Registry, Map<string, CheckedQuery>>();

/** The stream's `filters` parameter (qs object) → the filter AST, with Find's messages; null: none. */
export function parseStreamFilters(raw: unknown): FilterNode | null {
  return raw === undefined ? null : parseFilters(raw);
}

export class StreamAccess {
  private views = new Map<string, ModelView>();
  /** The caller's rules as last read (null: none, or no rules at all). */
  private rules: RuleView | null = null;

  constructor(
    private readonly authorizer: Authorizer | null,
    private readonly registry: Registry,
    private readonly check: QueryChecker,
    readonly models: readonly ContentType[],
    private readonly filters: FilterNode | null,
    /** The `filters` parameter as sent (part of the sharing key). */
    private readonly filtersKey: string,
  ) {}

  /**
   * Checks the stream's filters against every model as the caller may read it (400 as Find answers
   * it: a field outside its field list is unknown). Run once at connect, after `refused`: a filter
   * naming a field of one model only cannot be used with another.
   */
  checkFilters(): void {
    if (!this.filters) return;
    for (const m of this.models) {
      try {
        const seen = this.seenAs(m, this.rules);
        this.check(seen.model, emptyListQuery('inclusive', this.filters), versionOf(m), { registry: seen.registry });
      } catch (e) {
        if (e instanceof BadRequestError) throw new BadRequestError(`${e.message} (model ${m.name})`, { ...e.details, model: m.name });
        throw e;
      }
    }
  }

  /**
   * Models the stream names that `actor` may not stream now, each with the permission it lacks: `find`
   * (or `findDrafts` for a draft-enabled one) on the model, or `find` on a model its filter reaches
   * (connect: 401/403 as Find would, naming that permission).
   */
  async refused(actor: Actor | null): Promise<Refusal[]> {
    await this.refresh(actor);
    const out: Refusal[] = [];
    for (const m of this.models) {
      const v = this.views.get(m.name);
      if (!v?.allowed && !v?.badFilter) out.push({ model: m.name, missing: v?.missing ?? `${m.name}.find` });
    }
    return out;
  }

  /** Re-reads the caller's permissions (and rules) for every model of the stream. */
  async refresh(actor: Actor | null): Promise<void> {
    const rules = (this.authorizer as RuleAuthorizer | null)?.access ? await (this.authorizer as RuleAuthorizer).access!(actor, new Date()) : null;
    const views = new Map<string, ModelView>();
    for (const m of this.models) views.set(m.name, await this.viewOf(actor, m, rules));
    this.views = views;
    this.rules = rules;
  }

  private async viewOf(actor: Actor | null, model: ContentType, rules: RuleView | null): Promise<ModelView> {
    const denied: ModelView = { allowed: false, query: null, key: '', fields: null, pinned: null };
    const lacking = (missing: string): ModelView => ({ ...denied, missing });
    if (this.authorizer && !(await this.authorizer.can(actor, model.name, 'find'))) return lacking(`${model.name}.find`);
    // A draft-enabled model's record events carry its working copy (issue 14): drafts, for findDrafts holders only.
    if (hasDrafts(model) && this.authorizer && !(await this.authorizer.can(actor, model.name, 'findDrafts'))) return lacking(`${model.name}.findDrafts`);
    const scope = rules?.scope(model.name, 'find') ?? null;
    // Those working copies are bounded by the model's findDrafts rule as well (issue 16, as status=draft reads are).
    const drafts = hasDrafts(model) ? (rules?.scope(model.name, 'findDrafts')?.rows ?? null) : null;
    // As Find: the model's rule guards its rows, and every model the filter reaches through a relation is read
    // through its own find rule (findDrafts too where working copies are read) and field list, so a relation
    // filter cannot probe rows or fields the caller may not read (a stored rule that no longer parses: nothing).
    const seen = this.seenAs(model, rules);
    const rule = seen.scope?.root ?? null;
    let query: CheckedQuery | null = null;
    if (rule || this.filters) {
      try {
        query = this.check(seen.model, emptyListQuery('inclusive', this.filters), versionOf(model), { registry: seen.registry, scope: seen.scope });
      } catch {
        return { ...denied, badFilter: true }; // the filter names a field the caller may (no longer) read
      }
      // Relation filters read other models: Find asks `find` on each of them too (and `findDrafts` where they read working copies).
      for (const r of query.reads) {
        if (!this.authorizer) break;
        if (!(await this.authorizer.can(actor, r, 'find'))) return lacking(`${r}.find`);
        const target = this.registry.get(r);
        if (versionOf(model) === 'draft' && target && hasDrafts(target) && !(await this.authorizer.can(actor, r, 'findDrafts'))) return lacking(`${r}.findDrafts`);
      }
    }
    // Streams share one SQL check per event only under the same rules, the related models' included.
    const related = query ? [...query.reads].sort().map((r) => [r, rules?.scope(r, 'find')?.rows ?? null, rules?.scope(r, 'findDrafts')?.rows ?? null]) : [];
    const key = query ? JSON.stringify([model.name, this.filtersKey, scope?.rows ?? null, drafts, related]) : '';
    return { allowed: true, query, key, fields: scope?.fields ? new Set(scope.fields) : null, pinned: query ? this.pinnedQueries(model, seen, key) : null, ruled: rule !== null };
  }

  /**
   * `model` and the registry as the caller may read them in the stream's view (versionOf): fields outside its
   * field lists private, and its row rules (RequestAccess.rowScope, as a Find of that version); no rules: as is.
   */
  private seenAs(model: ContentType, rules: RuleView | null): { model: ContentType; registry: Registry; scope?: RowScope } {
    const version = versionOf(model);
    const base = version === 'published' ? publishedView(this.registry) : this.registry;
    const viewed = this.inView(model);
    if (!rules) return { model: viewed, registry: base };
    const access = new RequestAccess(rules, this.registry);
    const read = access.readView(viewed, 'find', base);
    return { ...read, scope: access.rowScope(model.name, 'find', base, version === 'draft') };
  }

  /**
   * `filter` and "the row is the version with this updatedAt", checked once per version for every stream
   * with the same `key` (the same filter and rule: the key the SQL checks are shared by), a few kept.
   */
  private pinnedQueries(model: ContentType, seen: { model: ContentType; registry: Registry; scope?: RowScope }, key: string): (updatedAt: string) => CheckedQuery {
    let made = pinnedByRegistry.get(this.registry);
    if (!made) pinnedByRegistry.set(this.registry, (made = new Map()));
    const kept = made;
    return (updatedAt) => {
      const at = `${key}\u0000${updatedAt}`;
      let q = kept.get(at);
      if (!q) {
        // the filter passed the check against the fields the caller may read; the version (a system field) is the server's condition
        const version = parseFilters({ updatedAt: { $eq: updatedAt } }, 'rule');
        q = this.check(seen.model, emptyListQuery('inclusive', this.filters ? { kind: 'and', items: [this.filters, version] } : version), versionOf(model), { registry: seen.registry, scope: seen.scope });
        if (kept.size >= PINNED_KEPT) kept.delete(kept.keys().next().value as string);
        kept.set(at, q);
      }
      return q;
    };
  }

  /** `model` as its stream's filter reads it (versionOf): from the published view of the registry, or as it is. */
  private inView(model: ContentType): ContentType {
    return versionOf(model) === 'published' ? (publishedView(this.registry).get(model.name) ?? model) : model;
  }

  view(model: string): ModelView | null {
    return this.views.get(model) ?? null;
  }

  /** The record without what the caller may not read (the same object when nothing is removed). */
  shown(model: string, view: ModelView, record: Record<string, unknown> | null): Record<string, unknown> | null {
    const m = this.registry.get(model);
    if (!record || !m) return record;
    let out: Record<string, unknown> | null = null;
    for (const a of m.attributes) {
      const hidden = a.private || (view.fields !== null && !view.fields.has(a.name));
      if (!hidden) continue;
      for (const k of a.kind === 'relation' && a.idField ? [a.name, a.idField] : [a.name]) {
        if (!Object.prototype.hasOwnProperty.call(out ?? record, k)) continue;
        out ??= { ...record };
        delete out[k];
      }
    }
    // Nothing to remove (the usual case): the event's own record, so its frame is shared by every stream.
    return out ?? record;
  }
}
