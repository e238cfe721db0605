/** Which database a configuration names, apart from how a node reaches it (config/redis-namespace.ts). */
import type { DatabaseTarget } from '../../config/schema';

/** Where a database lives, without who connects or how: server, port, database (and PostgreSQL schema). */
export function databaseIdentity(target: DatabaseTarget): string {
  if (target.client === 'sqlite') return `sqlite:${target.filename}`;
  let url: URL;
  try {
    url = new URL(target.connectionString);
  } catch {
    return `${target.client}:${target.connectionString}`;
  }
  const host = (url.searchParams.get('host') ?? url.hostname).toLowerCase();
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (target.client === 'mysql') return `mysql:${host}:${url.port || '3306'}/${database}`;
  // PostgreSQL's default database is the user's name; no schema: the connection's default, `public`
  return `pg:${host}:${url.searchParams.get('port') ?? (url.port || '5432')}/${database || decodeURIComponent(url.username)}/${target.schema ?? 'public'}`;
}
