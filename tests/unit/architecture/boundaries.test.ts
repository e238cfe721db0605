/**
 * The core never imports a plugin; plugins import only the allowed core files; dialect checks live
 * only in database/dialects (DESIGN: "the rule is enforced, not hoped for").
 */
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT } from '../../helpers/test-app';

function sources(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import|require\()\s*['"]([^'"]+)['"]/g)].map((m) => m[1]).filter((s) => s.startsWith('.'));
}

const rel = (file: string, spec: string): string => relative(ROOT, resolve(dirname(file), spec));

describe('architecture boundaries', () => {
  it('core/ (outside core/plugins/) imports no plugin', () => {
    const offenders = sources(join(ROOT, 'core'))
      .filter((f) => !relative(ROOT, f).startsWith('core/plugins/'))
      .flatMap((f) => imports(f).filter((s) => rel(f, s).startsWith('core/plugins/')).map((s) => `${relative(ROOT, f)} → ${s}`));
    expect(offenders).to.deep.equal([]);
  });

  it('plugins import only core/plugin-api, core/errors/* and core/registry/types from the core', () => {
    const allowed = (target: string): boolean =>
      target === 'core/plugin-api' || target.startsWith('core/errors/') || target === 'core/registry/types' || target.startsWith('core/plugins/');
    const offenders = sources(join(ROOT, 'core', 'plugins')).flatMap((f) =>
      imports(f)
        .map((s) => rel(f, s))
        .filter((t) => (t.startsWith('core/') || t.startsWith('database/') || t.startsWith('config/')) && !allowed(t) && !t.startsWith('config/schema'))
        .map((t) => `${relative(ROOT, f)} → ${t}`),
    );
    expect(offenders).to.deep.equal([]);
  });

  it('no dialect check outside database/dialects', () => {
    const dirs = ['core', 'config', 'admin-cli', 'database'].map((d) => join(ROOT, d));
    const offenders = dirs
      .flatMap(sources)
      // database/connect.ts is the factory that picks the dialect from the configuration
      .filter((f) => !relative(ROOT, f).startsWith('database/dialects/') && relative(ROOT, f) !== 'database/connect.ts')
      .filter((f) => /client\s*===?\s*['"](pg|sqlite3?|postgres)['"]|\.client\.config\.client/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(ROOT, f));
    expect(offenders).to.deep.equal([]);
  });

  it('no .only / .skip left in the tests', () => {
    const offenders = sources(join(ROOT, 'tests')).filter((f) => /\b(describe|it|context)\.(only|skip)\(/.test(readFileSync(f, 'utf8')));
    expect(offenders.map((f) => relative(ROOT, f))).to.deep.equal([]);
  });
});
