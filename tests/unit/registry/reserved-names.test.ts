/**
 * Names the registry refuses at boot, with one line naming the file and the path: attribute names every
 * JavaScript object already has (they would read as set on every body), and model names whose
 * /api/<name> paths core or a plugin routes itself.
 */
import { expect } from 'chai';
import { reservedModelNames } from '../../../core/api-segments';
import { buildRegistry } from '../../../core/registry/build';
import { enabledPlugins } from '../../../config/plugins';
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

  const reserved = reservedModelNames(enabledPlugins());
  for (const [name, holder] of [['realtime', 'the realtime event stream'], ['iam', 'the routes of the users-permissions plugin']] as const) {
    it(`refuses the model name ${name} (/api/${name} is ${holder})`, () => {
      let msg = '';
      try {
        buildRegistry(docs({ [name]: 'attributes:\n  title: { type: string }\n' }), reserved);
      } catch (e) {
        msg = (e as Error).message;
      }
      expect(msg).to.equal(`content-types/${name}.yaml: name: model name "${name}" is reserved: /api/${name} is taken by ${holder}; choose another name`);
      expect(() => buildRegistry(docs({ other: `name: ${name}\nattributes:\n  title: { type: string }\n` }), reserved)).to.throw(`content-types/other.yaml: name: model name "${name}" is reserved`);
    });
  }

  it('takes a model name that only starts like a reserved one', () => {
    expect(buildRegistry(docs({ 'realtime-feed': 'attributes:\n  title: { type: string }\n', iams: 'attributes:\n  title: { type: string }\n' }), reserved).contentTypes).to.have.length(2);
  });
});
