import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../../config';

/**
 * The processes of one deployment share Redis under one namespace whatever their DATABASE_URL says about
 * who connects and how; it used to be a hash of the whole connection string, so a node with another
 * password, `application_name` or spelling of the default port never saw the others' cache purges.
 */
describe('REDIS_NAMESPACE and the derived namespace', () => {
  const root = mkdtempSync(join(tmpdir(), 'ris-ns-'));
  const ns = (env: Record<string, string>): string => loadConfig({ DATA_DIR: join(root, 'data'), ...env }, root).redisNamespace;

  it('PostgreSQL: credentials, connection parameters and the default port do not change it', () => {
    const one = ns({ DATABASE_URL: 'postgres://app:old@db.example:5432/cms', DATABASE_SCHEMA: 'prod' });
    for (const url of ['postgres://app:new@db.example:5432/cms', 'postgresql://other@DB.example/cms?application_name=node-2&sslmode=require', 'postgres://app:old@db.example/cms']) {
      expect(ns({ DATABASE_URL: url, DATABASE_SCHEMA: 'prod' }), url).to.equal(one);
    }
  });

  it('PostgreSQL: another server, port, database or schema is another deployment; no schema is `public`', () => {
    const base = ns({ DATABASE_URL: 'postgres://app@db.example:5432/cms', DATABASE_SCHEMA: 'prod' });
    expect(ns({ DATABASE_URL: 'postgres://app@db2.example:5432/cms', DATABASE_SCHEMA: 'prod' })).to.not.equal(base);
    expect(ns({ DATABASE_URL: 'postgres://app@db.example:5433/cms', DATABASE_SCHEMA: 'prod' })).to.not.equal(base);
    expect(ns({ DATABASE_URL: 'postgres://app@db.example:5432/cms2', DATABASE_SCHEMA: 'prod' })).to.not.equal(base);
    expect(ns({ DATABASE_URL: 'postgres://app@db.example:5432/cms', DATABASE_SCHEMA: 'staging' })).to.not.equal(base);
    expect(ns({ DATABASE_URL: 'postgres://app@db.example:5432/cms' })).to.equal(ns({ DATABASE_URL: 'postgres://app@db.example:5432/cms', DATABASE_SCHEMA: 'public' }));
  });

  it('MariaDB: the same; SQLite: the same file however its path is spelled', () => {
    expect(ns({ DATABASE_URL: 'mysql://root:a@127.0.0.1:3306/cms' })).to.equal(ns({ DATABASE_URL: 'mariadb://app@127.0.0.1/cms?connectTimeout=5000' }));
    expect(ns({ DATABASE_URL: 'mysql://root@127.0.0.1:3306/cms' })).to.not.equal(ns({ DATABASE_URL: 'mysql://root@127.0.0.1:3306/cms2' }));
    expect(ns({ DATABASE_URL: `sqlite:${join(root, 'x', 'app.db')}` })).to.equal(ns({ DATABASE_URL: `sqlite:${root}/x/./y/../app.db` }));
    expect(ns({ DATABASE_URL: `sqlite:${join(root, 'x', 'app.db')}` })).to.not.equal(ns({ DATABASE_URL: `sqlite:${join(root, 'x', 'other.db')}` }));
  });

  it('REDIS_NAMESPACE names it outright (nodes reaching one database through different hosts); a bad one stops the start naming the setting', () => {
    expect(ns({ DATABASE_URL: 'postgres://app@proxy-a:6432/cms', REDIS_NAMESPACE: 'cms-prod' })).to.equal('cms-prod');
    expect(ns({ DATABASE_URL: 'postgres://app@proxy-b:6432/cms', REDIS_NAMESPACE: 'cms-prod' })).to.equal('cms-prod');
    expect(ns({ REDIS_NAMESPACE: 'a'.repeat(64) })).to.equal('a'.repeat(64));
    for (const bad of ['a'.repeat(65), 'cms prod', 'cms:prod', 'ä']) {
      expect(() => ns({ REDIS_NAMESPACE: bad }), bad).to.throw(ConfigError, /REDIS_NAMESPACE/);
    }
  });
});
