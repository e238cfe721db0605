/**
 * The access-rules file's diff (planAccessRules, pure): a rule is identified by its content (role, permission,
 * where, fields, description; JSON compared with object keys in any order); what is left pairs by role and
 * permission to be updated in place; the rest is inserted or deleted.
 */
import { expect } from 'chai';
import { canonicalJson, type DeclaredRule, planAccessRules, type StoredFileRule } from '../../../core/plugins/users-permissions/access-rules-file';

const d = (roleId: number, action: string, where: unknown = null, fields: unknown = null, description: string | null = null): DeclaredRule => ({ role: `r${roleId}`, roleId, action, where, fields, description });
const s = (id: number, roleId: number | null, action: string, where: unknown = null, fields: unknown = null, description: string | null = null, apiTokenId: number | null = null): StoredFileRule => ({ id, roleId, apiTokenId, action, where, fields, description });

const OWN = { createdById: { $eq: '$actor.id' } };

describe('identity: the access-rules file diff (pure)', () => {
  it('canonicalJson: object keys in any order are one value; array order and null/absent matter as written', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).to.equal(canonicalJson({ a: { c: null, d: [2, 1] }, b: 1 }));
    expect(canonicalJson(['name', 'city'])).to.not.equal(canonicalJson(['city', 'name']));
    expect(canonicalJson(undefined)).to.equal(canonicalJson(null));
    expect(canonicalJson({})).to.not.equal(canonicalJson(null));
  });

  it('the same rules (stored in any order, where keys reordered) are all kept: nothing to write', () => {
    const declared = [d(1, 'fee-type.find'), d(1, 'institute.find', { city: { $eq: 'S' }, name: { $eq: 'x' } }, ['name'], 'text')];
    const stored = [s(9, 1, 'institute.find', { name: { $eq: 'x' }, city: { $eq: 'S' } }, ['name'], 'text'), s(4, 1, 'fee-type.find')];
    expect(planAccessRules(declared, stored)).to.deep.equal({ keep: [4, 9], update: [], insert: [], remove: [] });
  });

  it('a changed where, fields or description updates the stored rule of that role and permission in place', () => {
    const declared = [d(1, 'fee-type.update', OWN, ['feeType'], 'mine'), d(2, 'fee-type.find', null, ['feeType', 'dueDate'])];
    const stored = [s(3, 1, 'fee-type.update', OWN, ['feeType'], 'own only'), s(5, 2, 'fee-type.find', null, ['feeType'])];
    const plan = planAccessRules(declared, stored);
    expect(plan.update.map((u) => [u.id, u.rule])).to.deep.equal([
      [3, declared[0]],
      [5, declared[1]],
    ]);
    expect(plan).to.include.keys('keep', 'insert', 'remove');
    expect([plan.keep, plan.insert, plan.remove]).to.deep.equal([[], [], []]);
  });

  it('an exact match wins over pairing: of two rules of one permission, the unchanged one is kept and the other updated', () => {
    const declared = [d(1, 'institute.find', { city: { $eq: 'A' } }), d(1, 'institute.find', { city: { $eq: 'C' } })];
    const stored = [s(1, 1, 'institute.find', { city: { $eq: 'B' } }), s(2, 1, 'institute.find', { city: { $eq: 'C' } })];
    const plan = planAccessRules(declared, stored);
    expect(plan.keep).to.deep.equal([2]);
    expect(plan.update.map((u) => [u.id, u.rule.where])).to.deep.equal([[1, { city: { $eq: 'A' } }]]);
  });

  it('a new permission or role is inserted, a dropped one deleted; another role is never paired with', () => {
    const declared = [d(1, 'fee-type.find'), d(2, 'fee-type.delete', OWN)];
    const stored = [s(1, 1, 'fee-type.find'), s(2, 1, 'fee-type.delete', OWN), s(3, 3, 'institute.find')];
    expect(planAccessRules(declared, stored)).to.deep.equal({ keep: [1], update: [], insert: [declared[1]], remove: [2, 3] });
  });

  it('a rule declared twice is stored twice; a stored duplicate beyond the file goes', () => {
    const twice = [d(1, 'fee-type.find'), d(1, 'fee-type.find')];
    expect(planAccessRules(twice, [s(7, 1, 'fee-type.find')])).to.deep.equal({ keep: [7], update: [], insert: [twice[1]], remove: [] });
    expect(planAccessRules([twice[0]], [s(7, 1, 'fee-type.find'), s(8, 1, 'fee-type.find')])).to.deep.equal({ keep: [7], update: [], insert: [], remove: [8] });
  });

  it('a file rule given to an API token matches nothing: deleted, the declared rule inserted; an empty file deletes them all', () => {
    const declared = [d(1, 'fee-type.find')];
    expect(planAccessRules(declared, [s(4, null, 'fee-type.find', null, null, null, 12)])).to.deep.equal({ keep: [], update: [], insert: declared, remove: [4] });
    expect(planAccessRules([], [s(2, 1, 'a.find'), s(1, 2, 'b.find')]).remove).to.deep.equal([1, 2]);
  });
});
