/**
 * A body's fields are its own keys: a field it leaves out is absent, even when every JavaScript object
 * has a property of that name (`constructor`, `toString`). The registry refuses such attribute names;
 * validation reads own properties anyway (ajv `ownProperties`), so nothing inherited is read as a value.
 */
import { expect } from 'chai';
import { buildRegistry } from '../../../core/registry/build';
import type { Attribute, ContentType } from '../../../core/registry/types';
import { compileValidators } from '../../../core/validation/compile';
import { docs } from '../../helpers/registry-docs';

const registry = buildRegistry(docs({ note: 'attributes:\n  title: { type: string, required: true }\n  spare: { type: string }\n  other: { type: integer, required: true }\n' }));

/** `note` with `spare` renamed `name` and `other` renamed `required`: as a model that bypassed the registry would declare them. */
function noteWith(optional: string, required: string): ContentType {
  const base = registry.get('note') as ContentType;
  const rename = (a: Attribute): Attribute => (a.name === 'spare' ? { ...a, name: optional } : a.name === 'other' ? { ...a, name: required } : a);
  const attributes = base.attributes.map(rename);
  return { ...base, attributes, byName: new Map(attributes.map((a) => [a.name, a] as const)) };
}

describe('validation: own properties only', () => {
  for (const [optional, required] of [['constructor', 'valueOf'], ['toString', 'hasOwnProperty'], ['toLocaleString', 'isPrototypeOf']]) {
    it(`a body without the optional ${optional} is valid; one without the required ${required} names it`, () => {
      const v = compileValidators(noteWith(optional, required), registry);
      for (const mode of ['create', 'put', 'patch'] as const) {
        expect(v.errors({ title: 'a', [required]: 1 }, mode), mode).to.equal(null);
      }
      expect(v.errors({ title: 'a' }, 'create')).to.deep.equal({ [required]: ['is required'] });
      expect(v.errors({ title: 'a', [required]: 1, [optional]: 5 }, 'create')).to.deep.equal({ [optional]: ['must be string or null'] });
      expect(v.check({ title: 'a', [required]: 1 }, 'create')).to.deep.equal({ title: 'a', [required]: 1 });
    });
  }
});
