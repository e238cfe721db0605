/**
 * Issue 14, pure parts: the published view of a registry (tables of draft-enabled models and the join
 * tables they own swapped for their shadows; nothing else) and the shadow tables the schema declares.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import { isPublishedView, publishedView } from '../../../core/drafts/view';
import { loadRegistry } from '../../../core/registry';
import type { RelationAttribute } from '../../../core/registry/types';
import { desiredSchema } from '../../../database/schema/desired';
import { ROOT } from '../../helpers/test-app';

const DRAFTS = join(ROOT, 'tests', 'fixtures', 'draft-models');

describe('draft & publish: the published view and the shadow tables', () => {
  const registry = loadRegistry([{ dir: DRAFTS, plugin: null }], ROOT);
  const view = publishedView(registry);
  const rel = (model: string, name: string): RelationAttribute => view.get(model)?.byName.get(name) as RelationAttribute;

  it('swaps the tables of draft-enabled models and the join tables they own, nothing else', () => {
    expect(view.get('article')?.table).to.equal('article__published');
    expect(view.get('category')?.table).to.equal('category__published');
    expect(view.get('tag')?.table).to.equal('tag');
    expect(rel('article', 'tags').joinTable?.table).to.equal('article_tags_links__published');
    expect(rel('tag', 'articles').joinTable?.table, 'the inverse side names the owner\'s join table').to.equal('article_tags_links__published');
    expect(rel('article', 'category').column).to.equal('category_id');
    expect(isPublishedView(view.get('article') as never)).to.equal(true);
    expect(isPublishedView(view.get('tag') as never)).to.equal(false);
    expect(isPublishedView(registry.get('article') as never)).to.equal(false);
    expect(publishedView(registry)).to.equal(view); // memoized
  });

  it('a registry without draft models is its own published view', () => {
    const shipped = loadRegistry([{ dir: join(ROOT, 'content-types'), plugin: null }], ROOT);
    expect(publishedView(shipped)).to.equal(shipped);
    expect(desiredSchema(shipped).tables.some((t) => t.name.endsWith('__published'))).to.equal(false);
  });

  it('declares the shadow tables: same columns, own index names, published join owner → shadow, target → entry', () => {
    const tables = new Map(desiredSchema(registry).tables.map((t) => [t.name, t] as const));
    const main = tables.get('article');
    const shadow = tables.get('article__published');
    expect(shadow?.publishedOf).to.equal('article');
    expect(shadow?.publishedModel).to.equal('article');
    expect(shadow?.columns.map((c) => c.name)).to.deep.equal(main?.columns.map((c) => c.name));
    expect(shadow?.columns.find((c) => c.name === 'category_id')?.references?.table).to.equal('category');
    const names = (t: typeof main) => (t?.indexes ?? []).map((i) => i.name);
    expect(names(shadow).filter((n) => names(main).includes(n))).to.deep.equal([]);
    expect(shadow?.indexes.filter((i) => i.unique).map((i) => i.columns)).to.deep.equal(main?.indexes.filter((i) => i.unique).map((i) => i.columns));
    const links = tables.get('article_tags_links__published');
    expect(links?.publishedOf).to.equal('article_tags_links');
    expect(links?.columns.find((c) => c.name === 'article_id')?.references?.table).to.equal('article__published');
    expect(links?.columns.find((c) => c.name === 'tag_id')?.references?.table).to.equal('tag');
    expect(tables.has('category__published')).to.equal(true);
    expect(tables.has('tag__published')).to.equal(false);
    expect(tables.has('media_files__published')).to.equal(true);
  });
});
