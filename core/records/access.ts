/**
 * Row-level rules and field lists of one request (issue 16), from the Authorizer's AccessView
 * (plugin-api.ts) to what the query pipeline takes: a RowScope (check.ts; rules are compiled into the
 * query's SQL) and a registry in which every attribute the caller may not read is private (so check.ts
 * and the serializer hide it exactly as they hide private attributes). Pure: no I/O here.
 */
import { hasDrafts } from '../drafts/names';
import { sameVersion } from '../drafts/view';
import { ForbiddenError } from '../errors/errors';
import type { AccessScope, AccessView } from '../plugin-api';
import { emptyListQuery, type FilterNode } from '../query/ast';
import { type RowScope, checkListQuery } from '../query/check';
import { parseFilters } from '../query/parse';
import type { Attribute, ContentType, Registry } from '../registry/types';

/** A JSON rule's leaves as the query string carries them: text (numbers and booleans written out). */
function asQueryValues(v: unknown): unknown {
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return v.map(asQueryValues);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asQueryValues(x)]));
  return v;
}

/** A rule (Find filter in JSON) → the filter AST; `at` names it in messages (`where[foo]`). */
export function parseRule(rule: unknown, at = 'where'): FilterNode {
  return parseFilters(asQueryValues(rule), at);
}

/**
 * Checks a rule against `model` as Find checks `filters` (same parse and check, same messages, the
 * relation cost bounds included). Throws the BadRequestError Find would give.
 */
export function checkRule(registry: Registry, model: ContentType, rule: unknown, at = 'where'): void {
  checkListQuery(emptyListQuery('active', parseRule(rule, at)), model, { registry, maxLimit: 1 });
}

/** Matches no row: `id IS NULL` (a stored rule that no longer parses fails closed). */
const NOTHING_NODE: FilterNode = { kind: 'compare', op: '$null', value: true, at: 'rule' };

/** `a AND b`, either possibly absent (null: every row). */
export function both(a: FilterNode | null, b: FilterNode | null): FilterNode | null {
  if (!a) return b;
  if (!b) return a;
  return { kind: 'and', items: [a, b] };
}

/** The attributes of `model` outside `fields` become private (hidden like `password`); null: unchanged. */
export function restrict(model: ContentType, fields: readonly string[] | null): ContentType {
  if (fields === null) return model;
  const keep = new Set(fields);
  const attributes: Attribute[] = model.attributes.map((a) => (a.private || keep.has(a.name) ? a : { ...a, private: true }));
  return sameVersion(model, { ...model, attributes, byName: new Map(attributes.map((a) => [a.name, a])) });
}

/** One request's access: the view of the Authorizer, over the full registry. */
export class RequestAccess {
  private readonly nodes = new Map<object, FilterNode>();

  constructor(
    private readonly view: AccessView,
    private readonly registry: Registry,
  ) {}

  scope(model: string, action: string): AccessScope | null {
    return this.view.scope(model, action);
  }

  private node(rows: Readonly<Record<string, unknown>> | null): FilterNode | null {
    if (rows === null) return null;
    let n = this.nodes.get(rows);
    if (!n) {
      try {
        n = parseRule(rows, 'rule');
      } catch {
        n = NOTHING_NODE;
      }
      this.nodes.set(rows, n);
    }
    return n;
  }

  /**
   * The rules of a statement on `model` under `action`; models reached through relations by their `find`
   * rule. `drafts` (a `status=draft` read, issue 14): it reads the working copies of every draft-enabled
   * model it reaches, which needs `findDrafts` besides `find` / `findOne`, so their rows are bounded by
   * both rules.
   */
  rowScope(model: string, action: string, base: Registry = this.registry, drafts = false): RowScope {
    const bounded = (m: string, rule: FilterNode | null): FilterNode | null => (drafts && hasDrafts(base.get(m)) ? both(rule, this.node(this.view.scope(m, 'findDrafts')?.rows ?? null)) : rule);
    return {
      root: bounded(model, this.node(this.view.scope(model, action)?.rows ?? null)),
      related: (m) => bounded(m, this.node(this.view.scope(m, 'find')?.rows ?? null)),
      registry: base,
    };
  }

  /** Readable fields of `model` under `action` (`find` for every other model), or null: all. */
  readable(model: string, action = 'find'): readonly string[] | null {
    return this.view.scope(model, action)?.fields ?? null;
  }

  /**
   * The registry as the caller may read it (the queried model under `action`, every other one under
   * `find`), and the queried model in it. `base`: the registry the read runs on (the published view of
   * issue 14, or the working copies).
   */
  readView(model: ContentType, action: string, base: Registry = this.registry): { registry: Registry; model: ContentType } {
    const cache = new Map<string, ContentType>();
    const full = base;
    const get = (name: string): ContentType | undefined => {
      const m = full.get(name);
      if (!m) return undefined;
      let r = cache.get(name);
      if (!r) {
        r = restrict(m, this.readable(name));
        cache.set(name, r);
      }
      return r;
    };
    const registry: Registry = {
      get,
      get contentTypes() {
        return full.contentTypes.map((m) => get(m.name) as ContentType);
      },
    };
    return { registry, model: restrict(model, this.readable(model.name, action)) };
  }

  /**
   * Refuses (403, naming the field) a write body that names an attribute outside the permission's
   * writable fields. A PUT writes every attribute (it resets the ones it omits), so under a field list
   * it is refused unless the list covers them all.
   */
  checkWritable(model: ContentType, action: 'create' | 'update', bodies: readonly unknown[], put: boolean, fileParts: readonly string[] = []): void {
    const fields = this.scope(model.name, action)?.fields ?? null;
    if (fields === null) return;
    const keep = new Set(fields);
    // A multipart file part writes its media field (`files`: the model's only media field).
    const media = model.attributes.filter((a) => a.kind === 'media');
    for (const part of fileParts) {
      const field = part === 'files' && media.length === 1 ? media[0].name : part;
      if (media.some((m) => m.name === field) && !keep.has(field)) throw new ForbiddenError(`field ${field} is not writable under ${model.name}.${action}`, { field });
    }
    for (const a of model.attributes) {
      // Private scalars (a password) are write-only, not unwritable: a body may set them, so the list guards
      // them too (a field list without `password` must not let its holder set anyone's password). Private
      // relations and media, inverse sides and server-only attributes are in no body (422 before this).
      if (keep.has(a.name) || a.writable === false || (a.private && a.kind !== 'scalar') || (a.kind === 'relation' && !a.owner)) continue;
      const names = a.kind === 'relation' && a.idField ? [a.idField, ...(a.userKeyField ? [a.userKeyField] : [])] : [a.name];
      if (put) throw new ForbiddenError(`field ${a.name} is not writable under ${model.name}.${action} (a PUT writes every field; use PATCH)`, { field: a.name });
      for (const b of bodies) {
        if (typeof b !== 'object' || b === null || Array.isArray(b)) continue;
        const named = names.find((n) => Object.prototype.hasOwnProperty.call(b, n));
        if (named) throw new ForbiddenError(`field ${named} is not writable under ${model.name}.${action}`, { field: named });
      }
    }
  }

  /**
   * A write answer without the fields the caller may not read: a field outside the model's `find` or
   * `findOne` field list is left out (a write answer shows no field either read would hide).
   */
  stripUnreadable(model: ContentType, record: Record<string, unknown>): Record<string, unknown> {
    const lists = [this.readable(model.name), this.readable(model.name, 'findOne')].filter((l): l is readonly string[] => l !== null);
    if (lists.length === 0) return record;
    const out = { ...record };
    // `_media` (a write that touched files) names each media field's files and their links: the same list holds.
    const media = typeof out._media === 'object' && out._media !== null ? { ...(out._media as Record<string, unknown>) } : null;
    for (const a of model.attributes) {
      if (lists.every((l) => l.includes(a.name))) continue;
      delete out[a.name];
      if (a.kind === 'relation' && a.idField) delete out[a.idField];
      if (media) delete media[a.name];
    }
    if (media && Object.keys(media).length > 0) out._media = media;
    else if (media) delete out._media;
    return out;
  }
}
