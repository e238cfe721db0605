/** Example records and bodies from the registry: the YAML `example`, else the kind's sample (attribute-kinds.ts). */
import { ATTRIBUTE_KINDS } from '../registry/attribute-kinds';
import { type ContentType, type Registry, type ScalarAttribute, NOT_DELETED } from '../registry/types';
import type { WriteMode } from '../validation/compile';

const WHEN = '2026-01-15T09:30:00.000Z';
export const EXAMPLE_CREATED_BY = { id: 1, fullName: 'Ada Admin', username: 'admin', email: 'admin@example.com' };
export const EXAMPLE_UPDATED_BY = { id: 1, fullName: 'Ada Admin', email: 'admin@example.com', active: true };

export function scalarExample(a: ScalarAttribute): unknown {
  return a.example !== undefined ? a.example : ATTRIBUTE_KINDS[a.type].example(a);
}

export interface RecordExampleOptions {
  /** Owning to-one relations shown populated (as the write endpoints answer). */
  readonly populated?: boolean;
  /** The record as a delete answers it on a soft-delete model. */
  readonly archived?: boolean;
}

/** A record as Find / FindOne show it by default. */
export function recordExample(model: ContentType, registry: Registry, opts: RecordExampleOptions = {}): Record<string, unknown> {
  const out: Record<string, unknown> = { id: 1 };
  for (const a of model.attributes) {
    if (a.private) continue;
    if (a.kind === 'scalar') {
      const v = scalarExample(a);
      out[a.name] = v === undefined ? null : v;
    } else if (a.kind === 'relation' && a.owner && a.idField) {
      out[a.idField] = a.example === undefined ? 1 : a.example;
      const target = registry.get(a.target);
      if (opts.populated && target) out[a.name] = recordExample(target, registry);
    }
  }
  Object.assign(out, {
    createdAt: WHEN,
    updatedAt: WHEN,
    deletedAt: opts.archived ? '2026-02-01T08:00:00.000Z' : null,
    deletedTracker: opts.archived ? 'deleted' : NOT_DELETED,
    publishedAt: null,
    localeName: null,
    defaultEntityLocaleId: null,
    createdById: null,
    updatedById: null,
  });
  return out;
}

/**
 * A create / PUT / PATCH body: only fields a client may write (server-only `writable: false` ones are
 * unknown fields of the body, 422); a related record is named by its user key where it has one, a
 * to-one relation whose YAML `example` is null is left out.
 */
export function writeExample(model: ContentType, registry: Registry, mode: WriteMode): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const a of model.attributes) {
    if (a.writable === false) continue;
    if (a.kind === 'scalar') {
      if (a.private && a.type !== 'password') continue; // a server-side secret: no sample
      if (mode === 'patch' && !a.required) continue; // a PATCH names a few fields only
      const v = scalarExample(a);
      if (v !== undefined) out[a.name] = v;
    } else if (a.kind === 'relation' && a.owner && !a.private && mode !== 'patch' && a.example !== null) {
      const target = registry.get(a.target);
      const key = target?.userKey ? target.byName.get(target.userKey) : undefined;
      const keyValue = key?.kind === 'scalar' ? scalarExample(key) : undefined;
      if (a.userKeyField && keyValue !== undefined) out[a.userKeyField] = keyValue;
      else if (a.idField) out[a.idField] = a.example ?? 1;
      else if (a.joinTable) out[a.name] = [1];
    }
  }
  return out;
}
