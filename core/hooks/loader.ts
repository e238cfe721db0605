/**
 * Project hooks: every `.js` module in HOOKS_DIR (default `hooks/` at the repo root; TypeScript files
 * there are compiled to `dist/hooks/`, which is read first) exports a `LifecycleHooks` object or an
 * array of them, as `default` or as `hooks`. Loaded once at start, in file-name order.
 */
import { existsSync, readdirSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import type { LifecycleHooks } from './types';

export function hookDirs(rootDir: string, hooksDir: string): string[] {
  const rel = isAbsolute(hooksDir) ? relative(rootDir, hooksDir) : hooksDir;
  const dirs = rel.startsWith('..') ? [hooksDir] : [join(rootDir, 'dist', rel), join(rootDir, rel)];
  return dirs.filter((d) => existsSync(d));
}

function asHooks(file: string, value: unknown): LifecycleHooks[] {
  const list = Array.isArray(value) ? value : [value];
  for (const h of list) {
    if (typeof h !== 'object' || h === null) throw new Error(`hooks: ${file} must export a hooks object (or an array of them) as default or \`hooks\``);
  }
  return list as LifecycleHooks[];
}

export function loadProjectHooks(rootDir: string, hooksDir: string): LifecycleHooks[] {
  const [dir] = hookDirs(rootDir, hooksDir);
  if (!dir) return [];
  const out: LifecycleHooks[] = [];
  for (const name of readdirSync(dir).filter((f) => /\.(c?js)$/.test(f)).sort()) {
    const file = join(dir, name);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(file) as { default?: unknown; hooks?: unknown };
    const value = mod.hooks ?? mod.default;
    if (value === undefined) continue;
    out.push(...asHooks(file, value));
  }
  return out;
}
