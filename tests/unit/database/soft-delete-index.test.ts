/** Issue 17: an `index: true` column of a soft-delete model is indexed as (column, deleted_tracker, id); elsewhere alone. */
import { expect } from 'chai';
import { parseDocument } from 'yaml';
import { buildRegistry } from '../../../core/registry/build';
import type { RawDocument } from '../../../core/registry/load';
import { desiredSchema } from '../../../database/schema/desired';

function registry(files: Record<string, string>) {
  const docs: RawDocument[] = Object.entries(files).map(([stem, text]) => ({ file: `content-types/${stem}.yaml`, stem, plugin: null, data: parseDocument(text).toJS() }));
  return buildRegistry(docs);
}

describe('schema: the soft-delete composite index', () => {
  it('soft delete on: (column, deleted_tracker, id); off: the column alone', () => {
    const reg = registry({
      soft: 'softDelete: true\nattributes:\n  day: { type: date, index: true }\n',
      hard: 'attributes:\n  day: { type: date, index: true }\n',
    });
    const indexes = (t: string) => desiredSchema(reg).tables.find((x) => x.name === t)!.indexes.map((i) => [i.name, i.columns, i.unique, i.nullsFirst ?? false]);
    // NULLs first (as the service sorts), so PostgreSQL can read the index in a sort's order
    expect(indexes('soft')).to.deep.include(['soft_day_deleted_tracker_id_index', ['day', 'deleted_tracker', 'id'], false, true]);
    expect(indexes('soft').some(([n]) => n === 'soft_day_index')).to.equal(false);
    expect(indexes('hard')).to.deep.include(['hard_day_index', ['day'], false, true]);
  });
});
