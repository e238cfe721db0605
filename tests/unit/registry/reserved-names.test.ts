/**
 * Names the registry refuses at boot, with one line naming the file and the path: attribute names every
 * JavaScript object already has (they would read as set on every body), and model names whose
 * /api/<name> paths core or a plugin routes itself.
 */
import { expect } from 'chai';
import { buildRegistry } from '../../../core/registry/build';
import { docs, failure } from '../../helpers/registry-docs';

const INHERITED = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', '__proto__', '__defineGetter__', '__lookupSetter__'];

describe('registry: reserved names', () => {
  for (const name of INHERITED) {
    it(`refuses the attribute name ${name} (an Object.prototype property)`, () => {
      const msg = failure({ note: `attributes:\n  title: { type: string }\n  ${name}: { type: string }\n` });
      expect(msg).to.equal(`content-types/note.yaml: attributes.${name}: attribute name "${name}" is reserved (every JavaScript object has a property "${name}"); choose another name`);
    });
  }

  it('refuses a relation named so, and still takes names that merely contain one', () => {
    const files = { tag: 'attributes:\n  label: { type: string }\n' };
    expect(failure({ ...files, note: 'attributes:\n  valueOf: { type: relation, relation: manyToOne, target: tag }\n' })).to.contain('content-types/note.yaml: attributes.valueOf: attribute name "valueOf" is reserved');
    const reg = buildRegistry(docs({ ...files, note: 'attributes:\n  constructorName: { type: string }\n  valueOfIt: { type: integer }\n  toStringify: { type: relation, relation: manyToOne, target: tag }\n' }));
    expect(reg.get('note')?.attributes.map((a) => a.name)).to.deep.equal(['constructorName', 'valueOfIt', 'toStringify']);
  });
});
