/**
 * Ids per many-to-many relation in one write (core/validation/relation-ids.ts): at 1,000 the body is
 * valid; at 1,001 the field's message names the limit (not ajv's words) and so do the details.
 */
import { expect } from 'chai';
import { buildRegistry } from '../../../core/registry/build';
import type { ContentType } from '../../../core/registry/types';
import { compileValidators } from '../../../core/validation/compile';
import { MAX_RELATION_IDS, RELATION_IDS_MESSAGE, relationIdsDetails } from '../../../core/validation/relation-ids';
import { docs } from '../../helpers/registry-docs';

const registry = buildRegistry(docs({ tag: 'attributes:\n  name: { type: string }\n', post: 'attributes:\n  tags: { type: relation, relation: manyToMany, target: tag }\n' }));
const v = compileValidators(registry.get('post') as ContentType, registry);
const ids = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

describe('relation ids per write', () => {
  it('1,000 ids pass', () => {
    expect(MAX_RELATION_IDS).to.equal(1000);
    expect(v.errors({ tags: ids(1000) }, 'create')).to.equal(null);
  });

  it('1,001 ids: our message naming relationIds, details { limit, max }', () => {
    const fields = v.errors({ tags: ids(1001) }, 'create');
    expect(fields).to.deep.equal({ tags: [RELATION_IDS_MESSAGE] });
    expect(RELATION_IDS_MESSAGE).to.include('1000').and.include('relationIds');
    expect(() => v.check({ tags: ids(1001) }, 'patch')).to.throw().with.property('details').that.deep.equals({ fields: { tags: [RELATION_IDS_MESSAGE] }, limit: 'relationIds', max: 1000 });
  });

  it('a bulk call\'s merged messages (item <i>: …) name it too; other messages do not', () => {
    expect(relationIdsDetails({ tags: [`item 3: ${RELATION_IDS_MESSAGE}`] })).to.deep.equal({ limit: 'relationIds', max: 1000 });
    expect(relationIdsDetails({ tags: ['must be array'] })).to.deep.equal({});
  });
});
