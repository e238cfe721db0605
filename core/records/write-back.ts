/**
 * The record as the write endpoints answer it: its default fields plus its to-one relations populated.
 * The answer's query is checked once per model; a write that RETURNs `columns(model)` is answered
 * from that row without reading it again. A related record of a model the caller may not `find`
 * shows as `{ id }` alone (issue 13 item 3: a write answer shows no more than a read would).
 */
import type { Knex } from 'knex';
import type { Dialect } from '../../database/dialects/dialect';
import { NotFoundError } from '../errors/errors';
import type { SoftDeleteScope } from '../query/ast';
import type { CheckedQuery, SelectedField } from '../query/checked';
import { checkListQuery } from '../query/check';
import type { ContentType, Registry, RelationAttribute } from '../registry/types';
import { serializeWithPopulate, withLinks } from './populate';
import * as repo from './repository';
import { type ApiRecord, type Row, serializeRow } from './serializer';

/** Related records a write has already loaded (its relation checks), by relation name; null: none. */
export type RelatedRows = Map<string, Row | null>;

export class WriteBack {
  private readonly answers = new Map<string, { query: CheckedQuery; columns: string[] }>();

  constructor(
    private readonly registry: Registry,
    private readonly dialect: Dialect,
  ) {}

  /** The columns a write must return for `present`. */
  columns(model: ContentType): string[] {
    return this.answer(model).columns;
  }

  /** What the answer shows of relation `name`'s record: a relation check that loads these spares `present` a query. */
  relatedFields(model: ContentType, name: string): SelectedField[] {
    const p = this.answer(model).query.populate.find((x) => x.relation.name === name);
    return p ? withLinks(p.select, p.populate) : [{ name: 'id', column: 'id', type: 'integer' }];
  }

  /**
   * Serializes a row holding `columns(model)`, with its to-one relations populated (from `related` where
   * loaded); a relation into a model of `unreadable` shows only the related record's id.
   */
  async present(db: Knex, model: ContentType, row: Row, unreadable: ReadonlySet<string>, related: ReadonlyMap<string, Row | null> = new Map()): Promise<ApiRecord> {
    const { query } = this.answer(model);
    const record = serializeRow(row, query.select);
    for (const p of query.populate) {
      if (unreadable.has(p.target.name)) {
        const fk = p.relation.column ? row[p.relation.column] : null;
        record[p.relation.name] = fk === null || fk === undefined ? null : { id: Number(fk) };
        continue;
      }
      const known = related.get(p.relation.name);
      if (known !== undefined) record[p.relation.name] = known === null ? null : serializeRow(known, p.select);
      else record[p.relation.name] = (await serializeWithPopulate(db, this.dialect, [row], [], [p]))[0][p.relation.name];
    }
    return record;
  }

  /** Reads record `id` in `scope` and presents it. */
  async read(db: Knex, model: ContentType, id: number, scope: SoftDeleteScope, unreadable: ReadonlySet<string>): Promise<ApiRecord> {
    const { query } = this.answer(model);
    const row = await repo.findById(db, this.dialect, model, id, scope, withLinks(query.select, query.populate));
    if (!row) throw new NotFoundError(`no ${model.name} with id ${id}`);
    return this.present(db, model, row, unreadable);
  }

  private answer(model: ContentType): { query: CheckedQuery; columns: string[] } {
    let hit = this.answers.get(model.name);
    if (!hit) {
      const populate = model.attributes
        .filter((a): a is RelationAttribute => a.kind === 'relation' && a.owner && a.column !== null && !a.private)
        .map((a) => ({ name: a.name, fields: null, filters: null, sort: [], populate: [], at: 'populate' }));
      const query = checkListQuery(
        { filters: null, sort: [], fields: null, populate, populateMedia: [], page: { limit: 1, offset: 0, page: null }, softDelete: 'inclusive', group: null },
        model,
        { registry: this.registry, maxLimit: 1 },
      );
      hit = { query, columns: withLinks(query.select, query.populate).map((f) => f.column) };
      this.answers.set(model.name, hit);
    }
    return hit;
  }
}
