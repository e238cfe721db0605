/** The checks a migration's diff brings (database/schema/row-checks.ts), without a database. */
import { expect } from 'chai';
import { parseDocument } from 'yaml';
import { buildRegistry } from '../../../core/registry/build';
import type { RawDocument } from '../../../core/registry/load';
import { desiredSchema } from '../../../database/schema/desired';
import { diffSchemas, snapshotOf } from '../../../database/schema/diff';
import { rowChecks } from '../../../database/schema/row-checks';
import type { SchemaDef } from '../../../database/schema/types';

/** The schema a registry of one model wants; `snapshot`: as a migration stores it (rename hints dropped). */
const schema = (text: string, snapshot = true): SchemaDef => {
  const docs: RawDocument[] = [{ file: 'content-types/gadget.yaml', stem: 'gadget', plugin: null, data: parseDocument(text).toJS() }];
  const desired = desiredSchema(buildRegistry(docs));
  return snapshot ? snapshotOf(desired) : desired;
};
const checks = (before: string, after: string) => {
  const to = schema(after, false);
  const diff = diffSchemas(schema(before), to);
  return { diff, checks: rowChecks(diff, to).map(({ model: _m, table: _t, ...c }) => c) };
};
const attrs = (lines: string): string => `attributes:\n${lines}`;

describe('row checks: the rules a migration tightens', () => {
  it('required, fewer enum values, lower maxLength, min/max and unique: one check each, on the old column names', () => {
    const before = attrs('  name: { type: string }\n  kind: { type: enumeration, enum: [a, b, c] }\n  code: { type: string, maxLength: 20 }\n  size: { type: integer }\n  serial: { type: string }\n');
    const after = attrs('  title: { type: string, required: true, renamedFrom: name }\n  kind: { type: enumeration, enum: [a, c] }\n  code: { type: string, maxLength: 5 }\n  size: { type: integer, min: 0, max: 10 }\n  serial: { type: string, unique: true }\n');
    const { diff, checks: got } = checks(before, after);
    expect(diff.destructive, 'a varchar made shorter is no type change: its rows are counted').to.deep.equal([]);
    expect(got).to.deep.equal([
      { rule: 'required', field: 'title', columns: ['name'] },
      { rule: 'enum', field: 'kind', columns: ['kind'], values: ['a', 'c'] },
      { rule: 'maxLength', field: 'code', columns: ['code'], limit: 5 },
      { rule: 'min', field: 'size', columns: ['size'], limit: 0 },
      { rule: 'max', field: 'size', columns: ['size'], limit: 10 },
      { rule: 'unique', field: 'serial', columns: ['serial'] },
    ]);
  });

  it('loosening, or a rule kept as it was, brings no check (but is a change a migration records)', () => {
    const before = attrs('  kind: { type: enumeration, enum: [a, b], required: true }\n  code: { type: string, maxLength: 5 }\n  size: { type: integer, min: 0, max: 10 }\n');
    const after = attrs('  kind: { type: enumeration, enum: [a, b, c] }\n  code: { type: string, maxLength: 20 }\n  size: { type: integer, min: -5, max: 100 }\n');
    const { diff, checks: got } = checks(before, after);
    expect(got).to.deep.equal([]);
    expect(diff.rules.map((r) => r.column)).to.deep.equal(['kind', 'code', 'size']);
    expect(checks(after, after).diff.rules).to.deep.equal([]);
  });

  it('a required attribute added without a default: every row breaks it; with a default, none', () => {
    const before = attrs('  name: { type: string }\n');
    expect(checks(before, `${before}  code: { type: string, required: true }\n`).checks).to.deep.equal([{ rule: 'required', field: 'code', columns: [] }]);
    expect(checks(before, `${before}  code: { type: string, required: true, default: x }\n`).checks).to.deep.equal([]);
  });

  it('rules a snapshot did not record are not known: nothing is checked, and a varchar is not made shorter unchecked', () => {
    const before = schema(attrs('  code: { type: string, maxLength: 20 }\n'));
    const old: SchemaDef = { ...before, tables: before.tables.map((t) => ({ ...t, columns: t.columns.map(({ rules: _r, ...c }) => c) })) };
    const to = schema(attrs('  code: { type: string, maxLength: 5, required: true }\n'));
    const diff = diffSchemas(old, to);
    expect(rowChecks(diff, to)).to.deep.equal([]);
    expect(diff.destructive).to.deep.equal(['change type of gadget.code (string → string)']);
  });
});
