/**
 * Every fixed `/api/<segment>` path core or a plugin routes is a model's own or a reserved name
 * (core/api-segments.ts), so the registry refuses a model that would share it: the list cannot fall
 * behind the routes.
 */
import Router from '@koa/router';
import { expect } from 'chai';
import knex from 'knex';
import pino from 'pino';
import { loadConfig } from '../../../config';
import { enabledPlugins } from '../../../config/plugins';
import { reservedModelNames } from '../../../core/api-segments';
import { modelSources } from '../../../core/boot';
import type { RequestState } from '../../../core/http/state';
import { loadRegistry } from '../../../core/registry';
import { sqliteDialect } from '../../../database/dialects/sqlite';
import { ROOT } from '../../helpers/test-app';

describe('architecture: reserved /api segments', () => {
  it('names every first segment the plugins route under /api that no model of theirs owns', async () => {
    const plugins = enabledPlugins();
    const config = loadConfig({ IAM_JWT_SECRET: 'x'.repeat(40), NODE_ENV: 'test' }, ROOT);
    const reserved = reservedModelNames(plugins);
    const registry = loadRegistry(modelSources(config, plugins), ROOT, reserved);
    const db = knex({ client: 'sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true, pool: { min: 0, max: 1 } });
    try {
      const router = new Router<RequestState>();
      for (const p of plugins) p.routes?.(router, { config, db, dialect: sqliteDialect, registry, log: pino({ level: 'silent' }) });
      const segments = new Set(router.stack.map((l) => String(l.path).split('/')).filter((s) => s[1] === 'api').map((s) => s[2]));
      expect(segments.size).to.be.greaterThan(0);
      const unreserved = [...segments].filter((s) => !reserved.has(s) && registry.get(s) === undefined);
      expect(unreserved).to.deep.equal([]);
      expect([...reserved.keys()]).to.include.members(['realtime', 'iam']);
    } finally {
      for (const p of plugins) await p.close?.();
      await db.destroy();
    }
  });
});
