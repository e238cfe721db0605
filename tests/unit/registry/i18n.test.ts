/** YAML `i18n: true` and `localized: false` (issue 14): what the registry makes of them, and what it refuses. */
import { expect } from 'chai';
import { buildRegistry } from '../../../core/registry/build';
import { desiredSchema } from '../../../database/schema/desired';
import { docs, failure } from '../../helpers/registry-docs';

describe('registry: i18n and localized', () => {
  const reg = buildRegistry(
    docs({
      page: 'i18n: true\nsoftDelete: true\nattributes:\n  title: { type: string, unique: true }\n  price: { type: decimal, localized: false }\n  owner: { type: relation, relation: manyToOne, target: plain }\n',
      plain: 'attributes:\n  name: { type: string, unique: true }\n',
    }),
  );

  it('marks the model and its attributes: localized by default, relations always shared', () => {
    const page = reg.get('page')!;
    expect(page.i18n).to.equal(true);
    expect(page.byName.get('title')?.localized).to.equal(true);
    expect(page.byName.get('price')?.localized).to.equal(false);
    expect(page.byName.get('owner')?.localized).to.equal(false);
    const plain = reg.get('plain')!;
    expect(plain.i18n).to.equal(false);
    expect(plain.byName.get('name')?.localized).to.equal(undefined);
  });

  it('makes unique values unique per locale (with the soft-delete tracker), and indexes the entry column', () => {
    const tables = desiredSchema(reg).tables;
    const page = tables.find((t) => t.name === 'page')!;
    expect(page.indexes.find((i) => i.unique)?.columns).to.deep.equal(['title', 'locale_name', 'deleted_tracker']);
    expect(page.indexes.some((i) => i.columns.join() === 'default_entity_locale_id,locale_name')).to.equal(true);
    const plain = tables.find((t) => t.name === 'plain')!;
    expect(plain.indexes.find((i) => i.unique)?.columns).to.deep.equal(['name']);
  });

  it('refuses localized on a model without i18n, localized: true on a relation, localized: false on media', () => {
    expect(failure({ a: 'attributes:\n  x: { type: string, localized: false }\n' })).to.equal('content-types/a.yaml: attributes.x.localized: only models with i18n: true have locales');
    expect(failure({ a: 'i18n: true\nattributes:\n  x: { type: relation, relation: manyToOne, target: a, localized: true }\n' })).to.contain('relations link entries');
    expect(failure({ a: 'i18n: true\nattributes:\n  x: { type: media, localized: false }\n' })).to.contain('media files are kept per locale');
  });
});
