/** The pure cost rules of core/query/cost.ts on the fixture models (the HTTP side: tests/api/records/query-cost.test.ts). */
import { expect } from 'chai';
import { BadRequestError } from '../../../core/errors/errors';
import { CostMeter, pathFrom, walksBack } from '../../../core/query/cost';
import type { ContentType, RelationAttribute } from '../../../core/registry/types';
import { fixtureRegistry } from '../../fixtures/query-oracle';

const model = (name: string): ContentType => {
  const m = fixtureRegistry().get(name);
  if (!m) throw new Error(`no fixture model ${name}`);
  return m;
};
const rel = (m: ContentType, name: string): RelationAttribute => {
  const a = m.byName.get(name);
  if (!a || a.kind !== 'relation') throw new Error(`${m.name}.${name} is no relation`);
  return a;
};

function refusal(fn: () => unknown): BadRequestError {
  try {
    fn();
  } catch (e) {
    if (e instanceof BadRequestError) return e;
    throw e;
  }
  throw new Error('no refusal');
}

describe('query cost rules (core/query/cost.ts)', () => {
  const book = model('book');
  const author = model('author');
  const tag = model('tag');
  const profile = model('profile');

  it('a walk back is the inverse of the relation just walked, from either side; another way back is not', () => {
    const viaAuthor = { start: 'book', steps: [{ from: book, attr: rel(book, 'author') }] };
    expect(walksBack(viaAuthor, author, rel(author, 'books'))).to.equal(true);
    expect(walksBack(viaAuthor, author, rel(author, 'profile'))).to.equal(false);
    const viaBooks = { start: 'author', steps: [{ from: author, attr: rel(author, 'books') }] };
    expect(walksBack(viaBooks, book, rel(book, 'author'))).to.equal(true);
    expect(walksBack(viaBooks, book, rel(book, 'tags'))).to.equal(false);
    const viaTags = { start: 'book', steps: [{ from: book, attr: rel(book, 'tags') }] };
    expect(walksBack(viaTags, tag, rel(tag, 'books'))).to.equal(true);
    // profile.favorite has no inverse: book → … never walks back over it
    const viaFavorite = { start: 'profile', steps: [{ from: profile, attr: rel(profile, 'favorite') }] };
    expect(walksBack(viaFavorite, book, rel(book, 'author'))).to.equal(false);
    expect(walksBack(pathFrom(book), book, rel(book, 'author'))).to.equal(false);
  });

  it('hops: at the bound a path walks, one past it is refused naming the setting and the path', () => {
    const meter = new CostMeter({ maxRelationHops: 2, maxRelationScopes: 100 });
    const one = meter.walk(pathFrom(tag), tag, rel(tag, 'books'), 'a');
    const two = meter.walk(one, book, rel(book, 'author'), 'b');
    expect(two.steps).to.have.length(2);
    const e = refusal(() => meter.walk(two, author, rel(author, 'profile'), 'filters[books][author][profile]'));
    expect(e.message).to.contain('QUERY_MAX_RELATION_HOPS').and.contain('tag.books.author.profile');
    expect(e.details).to.deep.equal({ parameter: 'filters[books][author][profile]', limit: 'relationHops', setting: 'QUERY_MAX_RELATION_HOPS', max: 2, path: 'tag.books.author.profile' });
  });

  it('a walk back is refused before the hop bound, naming the path', () => {
    const meter = new CostMeter({ maxRelationHops: 1, maxRelationScopes: 100 });
    const one = meter.walk(pathFrom(book), book, rel(book, 'author'), 'a');
    const e = refusal(() => meter.walk(one, author, rel(author, 'books'), 'filters[author][books]'));
    expect(e.details).to.deep.equal({ parameter: 'filters[author][books]', limit: 'relationWalkBack', path: 'book.author.books' });
  });

  it('scopes: the bound is reached, one more is refused naming the setting', () => {
    const meter = new CostMeter({ maxRelationHops: 3, maxRelationScopes: 3 });
    for (let i = 0; i < 3; i++) meter.addScope(`s${i}`);
    expect(meter.used).to.equal(3);
    const e = refusal(() => meter.addScope('sort[0]'));
    expect(e.details).to.deep.equal({ parameter: 'sort[0]', limit: 'relationScopes', setting: 'QUERY_MAX_RELATION_SCOPES', max: 3 });
  });
});
