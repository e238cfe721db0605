/**
 * issue 13 item 16: `npm run admin` (and start, bench) compile only what changed since the last build,
 * and stay correct on a fresh clone (no dist/), after a source edit and after a type error.
 *
 * Runs the repository's own package.json scripts and tsconfig.json in a scratch project with a few
 * tiny sources (the real tree takes seconds to compile, and the suite runs from its dist/).
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../helpers/test-app';

describe('npm scripts: build only when sources changed', function () {
  this.timeout(120_000);
  const dir = mkdtempSync(join(tmpdir(), 'ris-scripts-'));
  const buildInfo = join(dir, 'dist', '.tsbuildinfo');
  // Every node process of a script (tsc included) records the project sources it reads: compiling
  // reads them all; an up-to-date check only looks at their dates.
  const probe = join(dir, 'read-probe.js');
  const readLog = join(dir, 'reads.log');
  const reads = (): string[] => (existsSync(readLog) ? readFileSync(readLog, 'utf8').split('\n').filter(Boolean) : []);

  /** Writes a source file dated in the future, so no file-time granularity can hide the edit. */
  const source = (path: string, text: string, ahead = 0): void => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
    const t = new Date(Date.now() + ahead);
    utimesSync(join(dir, path), t, t);
  };
  const npm = (...args: string[]) => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('npm_')) env[k] = v;
    rmSync(readLog, { force: true });
    const r = spawnSync('npm', ['--silent', ...args], { cwd: dir, env: { ...env, NODE_OPTIONS: `--require ${probe}`, READ_LOG: readLog }, encoding: 'utf8', timeout: 60_000 });
    return { code: r.status, out: r.stdout.trim(), err: r.stderr };
  };
  const built = (): number => statSync(buildInfo).mtimeMs;

  before(() => {
    writeFileSync(
      probe,
      `const fs = require('fs'); const read = fs.readFileSync;
fs.readFileSync = function (p, ...rest) {
  if (typeof p === 'string' && p.endsWith('.ts') && p.startsWith(${JSON.stringify(dir)}) && !p.includes('node_modules')) fs.appendFileSync(process.env.READ_LOG, p + '\\n');
  return read.call(this, p, ...rest);
};\n`,
    );
    copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
    copyFileSync(join(ROOT, 'tsconfig.json'), join(dir, 'tsconfig.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    source('core/main.ts', "console.log('main v1');\n");
    source('admin-cli/index.ts', "console.log(`admin v1 ${process.argv.slice(2).join(' ')}`);\n");
    source('bench/run.ts', "console.log('bench v1');\n");
    source('config/setting.ts', 'export const answer: number = 42;\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a fresh clone (no dist/): `npm run admin` builds, then runs the command', () => {
    expect(existsSync(join(dir, 'dist'))).to.equal(false);
    const r = npm('run', 'admin', '--', 'user:list');
    expect(r.code, r.err).to.equal(0);
    expect(r.out).to.equal('admin v1 user:list');
    expect(existsSync(buildInfo)).to.equal(true);
    expect(reads(), 'the compiler read the sources').to.include(join(dir, 'admin-cli', 'index.ts'));
  });

  it('nothing changed: admin, start and bench run without compiling (the build record is untouched)', () => {
    const before = built();
    expect(npm('run', 'admin', '--', 'again').out).to.equal('admin v1 again');
    expect(reads(), 'sources read (compiled) by npm run admin').to.deep.equal([]);
    expect(npm('start').out).to.equal('main v1');
    expect(reads(), 'sources read (compiled) by npm start').to.deep.equal([]);
    expect(npm('run', 'bench').out).to.equal('bench v1');
    expect(reads(), 'sources read (compiled) by npm run bench').to.deep.equal([]);
    expect(built()).to.equal(before);
  });

  it('after a source edit, each of them runs the new code', () => {
    source('admin-cli/index.ts', "console.log('admin v2');\n", 2000);
    expect(npm('run', 'admin').out).to.equal('admin v2');
    source('core/main.ts', "console.log('main v2');\n", 4000);
    expect(npm('start').out).to.equal('main v2');
    source('bench/run.ts', "console.log('bench v2');\n", 6000);
    expect(npm('run', 'bench').out).to.equal('bench v2');
  });

  it('a type error stops the command, every time until it is fixed', () => {
    source('config/setting.ts', "export const answer: number = 'forty-two';\n", 8000);
    for (let i = 0; i < 2; i++) {
      const r = npm('run', 'admin');
      expect(r.code, `run ${i + 1}`).to.not.equal(0);
      expect(r.out + r.err, `run ${i + 1}`).to.match(/config\/setting\.ts.*TS2322/);
      expect(r.out, `run ${i + 1}`).to.not.contain('admin v2');
    }
    source('config/setting.ts', 'export const answer: number = 42;\n', 10000);
    expect(npm('run', 'admin').out).to.equal('admin v2');
  });
});
