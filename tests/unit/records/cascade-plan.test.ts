/**
 * Issue 15 with onDelete: which hard deletes must look for the records their foreign keys change, decided
 * from the registry at boot (core/records/cascade-events.ts). A model nothing announced depends on with
 * cascade or set null costs its deletes nothing.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import { CascadeEvents } from '../../../core/records/cascade-events';
import { loadRegistry } from '../../../core/registry';
import { enabledPlugins } from '../../../config/plugins';
import { sqliteDialect } from '../../../database/dialects/sqlite';
import { ROOT } from '../../helpers/test-app';

const plugins = enabledPlugins().flatMap((p) => (p.contentTypesDir ? [{ dir: p.contentTypesDir, plugin: p.name }] : []));

describe('cascade events: the plan from the registry', () => {
  const plan = (dir: string): ((name: string) => boolean) => {
    const registry = loadRegistry([{ dir, plugin: null }, ...plugins], ROOT);
    const cascades = new CascadeEvents(registry, sqliteDialect);
    return (name) => cascades.has(registry.get(name)!);
  };

  it('the fixture models: cascade and shown set null count, restrict, a private link and join tables do not', () => {
    const has = plan(join(ROOT, 'tests', 'fixtures', 'cascade-models'));
    expect(['institute', 'note', 'memo', 'comment', 'pin', 'ledger', 'label'].filter(has)).to.deep.equal(['institute', 'note']);
  });

  it('the shipped and plugin models: a user delete takes sessions and codes (no record API, no record events): nothing to look for', () => {
    const has = plan(join(ROOT, 'content-types'));
    expect(has('user')).to.equal(false);
    expect(has('session')).to.equal(false);
    expect(has('institute')).to.equal(false);
    expect(has('fee-type')).to.equal(false);
    // a role's access rules go with it (cascade) and are records of the record API
    expect(has('role')).to.equal(true);
  });
});
