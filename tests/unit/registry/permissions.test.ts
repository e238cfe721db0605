/**
 * Issue 13 items 11 and 12 at boot: `permissions:` names only the seeded roles and the model's own actions,
 * and the attribute options `writable` / `writeAction` are checked; each mistake stops the boot with one
 * line naming the file, the path inside it and the problem.
 */
import { expect } from 'chai';
import { buildRegistry } from '../../../core/registry/build';
import { docs, failure } from '../../helpers/registry-docs';


const ROLE = 'attributes:\n  name: { type: string }\n';
const USER = (roles: string) => `attributes:\n  name: { type: string }\n  roles: { type: relation, relation: manyToMany, target: role${roles} }\n`;

describe('registry: permissions and write options', () => {
  const cases: { name: string; files: Record<string, string>; message: string }[] = [
    { name: 'unknown role', files: { a: 'permissions:\n  editors: [find]\nattributes:\n  x: { type: string }\n' }, message: 'content-types/a.yaml: permissions: unknown role "editors" (roles: public, authenticated; admin holds every permission)' },
    { name: 'admin is no YAML role', files: { a: 'permissions:\n  admin: [find]\nattributes:\n  x: { type: string }\n' }, message: 'content-types/a.yaml: permissions: unknown role "admin"' },
    { name: 'unknown action', files: { a: 'permissions:\n  authenticated: [find, fnd]\nattributes:\n  x: { type: string }\n' }, message: 'content-types/a.yaml: permissions.authenticated.1: unknown action "fnd" (actions of this model: find, findOne, create, update, delete, recover)' },
    { name: 'another model\'s action', files: { role: ROLE, user: USER(', writeAction: assignRoles'), a: 'permissions:\n  public: [assignRoles]\nattributes:\n  x: { type: string }\n' }, message: 'content-types/a.yaml: permissions.public.0: unknown action "assignRoles"' },
    { name: 'not a list', files: { a: 'permissions:\n  public: find\nattributes:\n  x: { type: string }\n' }, message: 'content-types/a.yaml: permissions.public: must be array' },
    { name: 'grants on a model without an API', files: { a: 'api: false\npermissions:\n  public: [find]\nattributes:\n  x: { type: string }\n' }, message: 'content-types/a.yaml: permissions: a model without an API (api: false) has no permissions to grant' },
    { name: 'write action that is a record action', files: { a: 'attributes:\n  x: { type: string, writeAction: update }\n' }, message: 'content-types/a.yaml: attributes.x.writeAction: "update" is a record action' },
    { name: 'write action not camelCase', files: { a: 'attributes:\n  x: { type: string, writeAction: assign-roles }\n' }, message: 'content-types/a.yaml: attributes.x.writeAction: must match pattern' },
    { name: 'write action on a field nobody writes', files: { a: 'attributes:\n  x: { type: string, writable: false, writeAction: setX }\n' }, message: 'content-types/a.yaml: attributes.x.writeAction: an attribute that is not writable' },
    { name: 'required but not writable', files: { a: 'attributes:\n  x: { type: string, required: true, writable: false }\n' }, message: 'content-types/a.yaml: attributes.x.writable: a required attribute without a default must be writable' },
    { name: 'write action on an inverse side', files: { role: 'attributes:\n  users: { type: relation, relation: manyToMany, target: user, mappedBy: roles, writeAction: x }\n', user: USER(', inversedBy: users') }, message: 'content-types/role.yaml: attributes.users.writeAction: this relation is not written through the API' },
  ];
  for (const c of cases) {
    it(`${c.name} → ${c.message}`, () => {
      expect(failure(c.files)).to.contain(c.message);
    });
  }

  it('a model without permissions: grants nothing; one with it grants what it names; declared actions join the vocabulary', () => {
    const reg = buildRegistry(docs({ role: ROLE, user: USER(', writeAction: assignRoles'), a: 'permissions:\n  authenticated: [find, findOne]\n  public: []\nattributes:\n  x: { type: string, writable: false }\n' }));
    expect(reg.get('role')?.grants).to.deep.equal({ public: [], authenticated: [] });
    expect(reg.get('a')?.grants).to.deep.equal({ public: [], authenticated: ['find', 'findOne'] });
    expect(reg.get('user')?.actions).to.deep.equal(['find', 'findOne', 'create', 'update', 'delete', 'recover', 'assignRoles']);
    expect(reg.get('a')?.byName.get('x')?.writable).to.equal(false);
    expect(reg.get('user')?.byName.get('roles')?.writeAction).to.equal('assignRoles');
  });
});
