/**
 * Media rows of a field the models no longer have: the `media` attribute was removed or renamed (or its
 * model removed), so no answer shows those files any more. The start warns of them (database/migrate.ts
 * prepareSchema), and `media:prune` keeps them, and their files, unless told `--removed-fields`: a
 * renamed field's files can still be moved to its new name (README.md, "Models and migrations").
 */
import type { Knex } from 'knex';
import type { Registry } from '../registry/types';
import { MEDIA_TABLE } from './table';

export interface RemovedMediaField {
  readonly model: string;
  readonly field: string;
  /** Media rows (one a stored file) that name it. */
  readonly files: number;
}

/** True when `model` is a model of `registry` with a media attribute `field`. */
export function isMediaField(registry: Registry, model: string, field: string): boolean {
  return registry.get(model)?.attributes.some((a) => a.kind === 'media' && a.name === field) === true;
}

/** The (model, field) pairs media rows name that are no media field of `registry`, in name order. */
export async function removedMediaFields(db: Knex, registry: Registry): Promise<RemovedMediaField[]> {
  if (!(await db.schema.hasTable(MEDIA_TABLE))) return [];
  const pairs = (await db(MEDIA_TABLE).select('model', 'field').count({ n: '*' }).groupBy('model', 'field').orderBy(['model', 'field'])) as { model: string; field: string; n: number | string }[];
  return pairs.filter((p) => !isMediaField(registry, p.model, p.field)).map((p) => ({ model: p.model, field: p.field, files: Number(p.n) }));
}

/** The start's warning about one removed field, naming it and what becomes of its files. */
export function removedFieldWarning(r: RemovedMediaField): string {
  return (
    `media of ${r.model}.${r.field} (${r.files} file${r.files === 1 ? '' : 's'}) belong to a field the models no longer have (removed or renamed): no answer shows them; ` +
    '`admin-cli media:prune` keeps them unless run with --removed-fields (which deletes them); a renamed field\'s files can be moved to its new name (README.md, "Models and migrations")'
  );
}
