/**
 * The published view of a registry (issue 14): the same models, with the tables of `draftAndPublish`
 * models (and the join tables they own) swapped for their shadow copies. The query checker, the
 * compilers, populate and grouping run unchanged on it, so a `status=published` read sees published
 * content only, through every relation: a relation target without a published copy is simply absent.
 */
import type { Attribute, ContentType, Registry } from '../registry/types';
import { hasDrafts, joinOwner, publishedTable } from './names';

const views = new WeakMap<Registry, Registry>();
const publishedModels = new WeakSet<ContentType>();

function viewOf(model: ContentType, registry: Registry): ContentType {
  const attributes: Attribute[] = model.attributes.map((a) => {
    if (a.kind !== 'relation' || !a.joinTable || !hasDrafts(joinOwner(model, a, registry))) return a;
    return { ...a, joinTable: { ...a.joinTable, table: publishedTable(a.joinTable.table) } };
  });
  const out: ContentType = {
    ...model,
    table: hasDrafts(model) ? publishedTable(model.table) : model.table,
    attributes,
    byName: new Map(attributes.map((a) => [a.name, a] as const)),
  };
  if (hasDrafts(model)) publishedModels.add(out);
  return out;
}

/** The registry as readers of published content see it (memoized per registry). */
export function publishedView(registry: Registry): Registry {
  let v = views.get(registry);
  if (!v) {
    if (!registry.contentTypes.some((m) => hasDrafts(m))) v = registry;
    else {
      const contentTypes = registry.contentTypes.map((m) => viewOf(m, registry));
      const byName = new Map(contentTypes.map((c) => [c.name, c] as const));
      v = { contentTypes, get: (name) => byName.get(name) };
    }
    views.set(registry, v);
  }
  return v;
}

/** True for the published-view object of a `draftAndPublish` model (its table is the shadow table). */
export function isPublishedView(model: ContentType): boolean {
  return publishedModels.has(model);
}

/**
 * `derived` (a copy of `source`, e.g. with the attributes a caller may not read made private, issue 16)
 * reads the version `source` reads: answers say `_status` by it, whatever the caller may read.
 */
export function sameVersion(source: ContentType, derived: ContentType): ContentType {
  if (publishedModels.has(source)) publishedModels.add(derived);
  return derived;
}
