/** Names of the published copies (issue 14, DESIGN-NOTES.md "Draft & publish"): pure. */
import type { ContentType, Registry, RelationAttribute } from '../registry/types';

/** The suffix of a shadow table: `<table>__published` holds the published copy of each entry. */
export const PUBLISHED_SUFFIX = '__published';

export function publishedTable(table: string): string {
  return `${table}${PUBLISHED_SUFFIX}`;
}

export function hasDrafts(model: ContentType | undefined): boolean {
  return model?.draftAndPublish === true;
}

/** The model that owns the join table of relation `a` of `model` (the owning side; an inverse side names it). */
export function joinOwner(model: ContentType, a: RelationAttribute, registry: Registry): ContentType | undefined {
  return a.owner ? model : registry.get(a.target);
}

/** The version a read or a record shows: the published copy or the editors' working copy. */
export type Version = 'published' | 'draft';
export const VERSIONS: readonly Version[] = ['published', 'draft'];
