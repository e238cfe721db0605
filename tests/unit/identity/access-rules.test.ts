/** Issue 16: the pure parts of access rules (variables, OR/union of rules, plain grants winning) and the shipped example rules file. */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../../config';
import { enabledPlugins } from '../../../config/plugins';
import { modelSources } from '../../../core/boot';
import { loadRegistry } from '../../../core/registry';
import { parseAccessRules } from '../../../core/plugins/users-permissions/access-rules-file';
import { checkRuleInput, scopeOf, type StoredRule, substitute, variesOf, viewOf } from '../../../core/plugins/users-permissions/access-rules';
import { ROOT } from '../../helpers/test-app';

const NOW = new Date('2026-11-24T12:00:00.000Z');
const rule = (action: string, where: StoredRule['where'], fields: StoredRule['fields'] = null): StoredRule => ({ id: 1, role: 'author', action, where, fields });

describe('identity: access rules (pure)', () => {
  const config = loadConfig({ IAM_JWT_SECRET: 'x'.repeat(40), NODE_ENV: 'test' }, ROOT);
  const registry = loadRegistry(modelSources(config, enabledPlugins()), ROOT);

  it('substitutes $actor.id, $actor.roles (a list, flattened inside lists) and $now, and nothing else', () => {
    const out = substitute({ createdById: { $eq: '$actor.id' }, $or: [{ name: { $in: ['$actor.roles', 'x'] } }, { dueDate: { $lt: '$now' } }], note: { $eq: '$actor.name' } }, 7, ['a', 'b'], NOW);
    expect(out).to.deep.equal({ createdById: { $eq: 7 }, $or: [{ name: { $in: ['a', 'b', 'x'] } }, { dueDate: { $lt: NOW.toISOString() } }], note: { $eq: '$actor.name' } });
    expect(variesOf({ a: { $eq: '$actor.id' }, b: { $lt: '$now' } })).to.deep.equal(['actor', 'now']);
    expect(variesOf({ a: { $in: ['$actor.roles'] } })).to.deep.equal([]);
    expect(substitute({ dueDate: { $gte: '$today' } }, 1, [], NOW)).to.deep.equal({ dueDate: { $gte: '2026-11-24' } });
    expect(variesOf({ dueDate: { $gte: '$today' } })).to.deep.equal(['now']);
  });

  it('rules OR together, fields unite, a rule without where/fields lifts that part, a plain grant wins', () => {
    const a = rule('fee-type.find', { createdById: { $eq: '$actor.id' } }, ['feeType']);
    const b = rule('fee-type.find', { city: { $eq: 'X' } }, ['dueDate', 'feeType']);
    expect(scopeOf('fee-type.find', new Set(), [a, b], 3, ['author'], NOW)).to.deep.equal({
      rows: { $or: [{ createdById: { $eq: 3 } }, { city: { $eq: 'X' } }] },
      fields: ['feeType', 'dueDate'],
      varies: ['actor'],
    });
    expect(scopeOf('fee-type.find', new Set(), [a], 3, [], NOW)?.rows).to.deep.equal({ createdById: { $eq: 3 } });
    expect(scopeOf('fee-type.find', new Set(), [a, rule('fee-type.find', null, ['x'])], 3, [], NOW)).to.deep.equal({ rows: null, fields: ['feeType', 'x'], varies: [] });
    expect(scopeOf('fee-type.find', new Set(), [a, rule('fee-type.find', null, null)], 3, [], NOW)).to.equal(null);
    expect(scopeOf('fee-type.find', new Set(['fee-type.find']), [a], 3, [], NOW), 'plain grant wins').to.equal(null);
    expect(scopeOf('fee-type.update', new Set(), [a], 3, [], NOW), 'no rule names it').to.equal(null);
    // the public role and API tokens have no user id: 0 matches no record
    const view = viewOf(new Set(), [a], null, ['public'], NOW);
    expect(view?.scope('fee-type', 'find')?.rows).to.deep.equal({ createdById: { $eq: 0 } });
    expect(viewOf(new Set(), [], null, ['public'], NOW)).to.equal(null);
  });

  it('checks a rule as Find checks filters (same messages), its permission and its fields', () => {
    const fail = (input: Parameters<typeof checkRuleInput>[1]): string => {
      try {
        checkRuleInput({ registry }, input);
      } catch (e) {
        return (e as Error).message;
      }
      return 'accepted';
    };
    expect(fail({ action: 'fee-type.update', where: { createdById: { $eq: '$actor.id' } }, fields: ['feeType', 'institute'] })).to.equal('accepted');
    expect(fail({ action: 'fee-type.update', where: { institute: { city: { $eq: 'X' } } }, fields: null })).to.equal('accepted');
    expect(fail({ action: 'fee-type.find', where: { dueDate: { $gte: '$today' }, createdAt: { $lte: '$now' } }, fields: null })).to.equal('accepted');
    expect(fail({ action: 'fee-type.find', where: { dueDate: { $gte: '$now' } }, fields: null }), 'a date-time is no date').to.match(/^where\[dueDate\]\[\$gte\]: /);
    expect(fail({ action: 'fee-type.find', where: { nope: { $eq: 1 } }, fields: null })).to.equal('where[nope]: unknown field "nope" of fee-type');
    expect(fail({ action: 'fee-type.find', where: { feeType: { $near: 1 } }, fields: null })).to.match(/^where\[feeType\]\[\$near\]: unknown operator "\$near"/);
    expect(fail({ action: 'fee-type.find', where: { dueDate: { $eq: 'soon' } }, fields: null })).to.match(/^where\[dueDate\]\[\$eq\]: /);
    expect(fail({ action: 'fee-type.fly', where: null, fields: null })).to.contain('no permission "fee-type.fly"');
    expect(fail({ action: 'nope.find', where: null, fields: null })).to.contain('no permission "nope.find"');
    expect(fail({ action: 'fee-type.find', where: null, fields: ['password', 'feeType'] })).to.equal('fields: unknown field "password" of fee-type');
    expect(fail({ action: 'user.find', where: null, fields: ['password'] })).to.equal('fields: unknown field "password" of user');
    expect(fail({ action: 'fee-type.find', where: [1], fields: null })).to.equal('where: must be an object of fields and operators');
  });

  it('the shipped example rules file checks; a bad one names its place', () => {
    const text = readFileSync(join(ROOT, 'config', 'access-rules.example.yaml'), 'utf8');
    const rules = parseAccessRules(text, 'example', registry);
    expect(rules.length).to.be.greaterThan(5);
    expect(rules.find((r) => r.action === 'fee-type.update')).to.deep.include({ role: 'author', where: { createdById: { $eq: '$actor.id' } } });
    expect(() => parseAccessRules('author:\n  fee-type.find:\n    - where: { x: { $eq: 1 } }\n', 'f.yaml', registry)).to.throw('f.yaml: author.fee-type.find[0]: where[x]: unknown field "x" of fee-type');
    expect(() => parseAccessRules('author:\n  fee-type.find:\n    - wher: {}\n', 'f.yaml', registry)).to.throw('unknown key wher');
    expect(() => parseAccessRules('- a\n', 'f.yaml', registry)).to.throw('f.yaml: top level');
    expect(parseAccessRules('', 'f.yaml', registry)).to.deep.equal([]);
  });
});
