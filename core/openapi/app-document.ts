/** The document of a running service (server and `openapi:export` alike): the registry, each plugin's fragment, the package version. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Plugin, PluginDeps } from '../plugin-api';
import { buildOpenApiDocument } from './document';
import type { NamedFragment } from './merge';
import type { OpenApiDocument } from './types';
import { realtimeOpenApi } from '../realtime/openapi';

function packageVersion(rootDir: string): string {
  try {
    const pkg = JSON.parse(readFileSync(join(rootDir, 'package.json'), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

export function appDocument(plugins: readonly Plugin[], deps: PluginDeps): OpenApiDocument {
  const fragments: NamedFragment[] = plugins.flatMap((p) => (p.openapi ? [{ plugin: p.name, fragment: p.openapi(deps) }] : []));
  fragments.push({ plugin: 'realtime', fragment: realtimeOpenApi() });
  return buildOpenApiDocument({ registry: deps.registry, fragments, version: packageVersion(deps.config.rootDir) });
}
