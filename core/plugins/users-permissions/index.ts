/**
 * The users-permissions (identity) plugin: user, role and permission models, /api/iam/*, bearer
 * authentication, `<model>.<action>` authorization, seeding and admin CLI commands. It reaches the
 * core only through core/plugin-api.ts; config/plugins.ts enables it.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Plugin, PluginDeps } from '../../plugin-api';
import { applyAccessRulesFile } from './access-rules-file';
import { registerIdentityCli } from './cli';
import { identityOpenApi } from './openapi';
import { publicBodyLimits } from './public-body';
import { identityRoutes } from './routes';
import { createRuntime, type Runtime } from './runtime';
import { seed } from './seed';
import { identityHooks } from './hooks';

/** The YAML models live beside the sources (tsc does not copy them into dist/). */
function contentTypesDir(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'core', 'plugins', 'users-permissions', 'content-types');
}

/** A fresh plugin instance per server / CLI run (its caches and connections are its own). */
export function usersPermissions(): Plugin {
  // One runtime per database handle: the server hands bootstrap and createApp different deps objects
  // for the same database, and two runtimes would mean two sets of caches and Redis connections.
  const runtimes = new Map<PluginDeps['db'], Runtime>();
  const runtime = (deps: PluginDeps): Runtime => {
    let r = runtimes.get(deps.db);
    if (!r) {
      r = createRuntime(deps);
      runtimes.set(deps.db, r);
    }
    return r;
  };
  return {
    name: 'users-permissions',
    contentTypesDir: contentTypesDir(),
    // /api/iam/… (routes.ts); /api/user and /api/access-rule are its own models'.
    apiSegments: ['iam'],
    routes: (router, deps) => {
      const r = runtime(deps);
      identityRoutes(router, { service: r.service, auth: r.authenticator, authorizer: r.authorizer, apiTokens: r.apiTokens, store: r.store, rules: { registry: deps.registry, store: r.accessRules }, publicBodyMaxBytes: deps.config.iam.bodyMaxBytes });
    },
    bodyLimits: (deps) => publicBodyLimits(deps.config.iam.bodyMaxBytes),
    authenticator: (deps) => runtime(deps).authenticator,
    authorizer: (deps) => runtime(deps).authorizer,
    bootstrap: async (deps) => {
      const r = runtime(deps);
      await seed(r.store);
      const rules = await applyAccessRulesFile(r.store, r.accessRules, deps.config.iam.accessRulesFile);
      if (rules.created + rules.updated + rules.deleted + rules.roles > 0) deps.log.info({ file: deps.config.iam.accessRulesFile, ...rules }, 'access-rules file applied');
      // This node's permission cache (other nodes' expire within CACHE_TTL_MS). The response cache purges on the
      // writes to access_rules / roles themselves (core/cache/write-tracker.ts, from boot on; with CACHE=redis for
      // every node): a changed rule purges what it may change, an unchanged file writes nothing and purges nothing.
      r.authorizer.invalidate();
    },
    hooks: (deps) => identityHooks(runtime(deps)),
    openapi: identityOpenApi,
    cli: (program, deps) => registerIdentityCli(program, async () => runtime(await deps())),
    async close() {
      for (const r of runtimes.values()) {
        r.delivery.close();
        await r.limiter.close();
        await r.bus?.close();
      }
      runtimes.clear();
    },
  };
}
