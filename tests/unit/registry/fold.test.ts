/** The case fold behind the `…i` operators and its hidden columns (core/registry/fold.ts), without a database. */
import { expect } from 'chai';
import { foldColumnName, foldText, withFolds } from '../../../core/registry/fold';
import { buildRegistry } from '../../../core/registry/build';
import type { RawDocument } from '../../../core/registry/load';
import { desiredSchema } from '../../../database/schema/desired';
import { diffSchemas, snapshotOf } from '../../../database/schema/diff';
import { parseDocument } from 'yaml';

function registry(files: Record<string, string>, apiFalse: readonly string[] = []) {
  const docs: RawDocument[] = Object.entries(files).map(([stem, text]) => ({ file: `content-types/${stem}.yaml`, stem, plugin: null, data: parseDocument(`${apiFalse.includes(stem) ? 'api: false\n' : ''}${text}`).toJS() }));
  return buildRegistry(docs);
}

describe('fold: foldText', () => {
  const same: [string, string][] = [
    ['Ärger', 'ärger'],
    ['ÉCOLE', 'école'],
    ['e\u0301cole', 'École'], // NFD and NFC
    ['Straße', 'STRASSE'],
    ['ΟΔΟΣ', 'οδοσ'],
    ['ΟΔΟΣ', 'οδος'], // final sigma
    ['Σ', 'ς'],
    ['ДОМ', 'дом'],
    ['ǅ', 'ǆ'], // title case
    ['ﬁle', 'FILE'], // ligature
    ['Kelvin \u212a', 'kelvin k'],
  ];
  for (const [a, b] of same) {
    it(`${JSON.stringify(a)} ≡ ${JSON.stringify(b)}`, () => expect(foldText(a)).to.equal(foldText(b)));
  }

  const different: [string, string][] = [
    ['e', 'é'], // accents are kept
    ['%', '_'],
    ['ο', 'o'], // Greek omicron is not Latin o
    ['д', 'd'],
  ];
  for (const [a, b] of different) {
    it(`${JSON.stringify(a)} ≢ ${JSON.stringify(b)}`, () => expect(foldText(a)).to.not.equal(foldText(b)));
  }

  it('the ASCII shortcut is the full fold on ASCII', () => {
    const ascii = Array.from({ length: 128 }, (_, i) => String.fromCharCode(i)).join('');
    expect(foldText(ascii)).to.equal(ascii.normalize('NFC').toUpperCase().toLowerCase().normalize('NFC'));
    expect(foldText('A%_\\b')).to.equal('a%_\\b');
  });

  it('is idempotent: a folded needle folds to itself', () => {
    for (const s of ['Ärger', 'Straße', 'ΟΔΟΣ ς', 'e\u0301cole', 'İstanbul', 'ǅ', 'ﬃ', 'ΐ']) expect(foldText(foldText(s)), s).to.equal(foldText(s));
  });
});

describe('fold: hidden columns', () => {
  it('named <column>__fold; long names stay within 63 characters and distinct', () => {
    expect(foldColumnName('fee_type')).to.equal('fee_type__fold');
    const a = foldColumnName(`${'x'.repeat(60)}_a`);
    const b = foldColumnName(`${'x'.repeat(60)}_b`);
    expect(a.length).to.be.at.most(63);
    expect(a).to.match(/__fold$/);
    expect(a).to.not.equal(b);
  });

  it('exist for public text attributes of models with an API only', () => {
    const reg = registry({
      thing: 'attributes:\n  name: { type: string }\n  body: { type: text }\n  mail: { type: email }\n  slug: { type: uid }\n  kind: { type: enumeration, enum: [a, b] }\n  secret: { type: string, private: true }\n  pass: { type: password }\n  size: { type: integer }\n  data: { type: json }\n',
      hidden: 'attributes:\n  name: { type: string }\n',
    }, ['hidden']);
    const cols = (t: string) => desiredSchema(reg).tables.find((x) => x.name === t)?.columns.filter((c) => c.foldOf !== undefined).map((c) => [c.name, c.foldOf, c.spec.method]);
    expect(cols('thing')).to.deep.equal([
      ['name__fold', 'name', 'text'],
      ['body__fold', 'body', 'text'],
      ['mail__fold', 'mail', 'text'],
      ['slug__fold', 'slug', 'text'],
      ['kind__fold', 'kind', 'text'],
    ]);
    expect(cols('hidden')).to.deep.equal([]);
  });

  it('a declared rename renames the fold too (no backfill, no data lost)', () => {
    const before = snapshotOf(desiredSchema(registry({ thing: 'attributes:\n  title: { type: string }\n' })));
    const after = desiredSchema(registry({ thing: 'attributes:\n  heading: { type: string, renamedFrom: title }\n' }));
    const diff = diffSchemas(before, after);
    expect(diff.ops.map((o) => (o.op === 'renameColumn' ? `${o.from}→${o.to}` : o.op))).to.deep.equal(['title→heading', 'title__fold→heading__fold']);
    expect(diff.destructive).to.deep.equal([]);
  });

  it('withFolds adds the fold of each text column the row sets, NULL for NULL, nothing else', () => {
    const reg = registry({ thing: 'attributes:\n  name: { type: string }\n  note: { type: text }\n  size: { type: integer }\n  secret: { type: string, private: true }\n' });
    const model = reg.get('thing');
    if (!model) throw new Error('no model');
    expect(withFolds(model, { name: 'ÄRGER', note: null, size: 3, secret: 'X', updated_at: 'now' })).to.deep.equal({ name: 'ÄRGER', note: null, size: 3, secret: 'X', updated_at: 'now', name__fold: 'ärger', note__fold: null });
    expect(withFolds(model, { size: 4 })).to.deep.equal({ size: 4 });
  });
});
