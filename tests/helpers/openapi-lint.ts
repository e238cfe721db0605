/** Redocly CLI lint (redocly.yaml: recommended rules) and our own rule checks, for the docs tests and `npm run lint:openapi`. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from './test-app';

export interface LintResult {
  readonly errors: number;
  readonly warnings: number;
  readonly problems: string[];
}

/** Runs `redocly lint --format=json` on the document (written to a temp file). */
export function redoclyLint(doc: unknown): LintResult {
  const dir = mkdtempSync(join(tmpdir(), 'ris-lint-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc, null, 2));
    const cli = join(dirname(require.resolve('@redocly/cli/package.json')), 'bin', 'cli.js');
    const r = spawnSync(process.execPath, [cli, 'lint', file, '--format=json', `--config=${join(ROOT, 'redocly.yaml')}`], {
      encoding: 'utf8',
      timeout: 30_000,
      // no telemetry, no update check: the lint runs offline
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    });
    const start = r.stdout.indexOf('{');
    if (start < 0) throw new Error(`redocly lint gave no JSON (exit ${String(r.status)}): ${r.stderr.slice(0, 2000)}`);
    const out = JSON.parse(r.stdout.slice(start)) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string; location?: { pointer?: string }[] }[] };
    return {
      errors: out.totals.errors,
      warnings: out.totals.warnings,
      problems: out.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer ?? '?'}`),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type Obj = Record<string, unknown>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];

/** Our own rules: unique operationIds; summary, tags, responses on every operation (4xx on /api ones); declared tags; every $ref resolves. */
export function ownRuleProblems(doc: Obj): string[] {
  const problems: string[] = [];
  const ids = new Map<string, string>();
  const declaredTags = new Set(((doc.tags as Obj[] | undefined) ?? []).map((t) => t.name as string));
  for (const [path, item] of Object.entries(doc.paths as Record<string, Obj>)) {
    for (const method of METHODS) {
      const op = item[method] as Obj | undefined;
      if (!op) continue;
      const at = `${method.toUpperCase()} ${path}`;
      const id = op.operationId as string | undefined;
      if (!id) problems.push(`${at}: no operationId`);
      else if (ids.has(id)) problems.push(`${at}: operationId ${id} also names ${ids.get(id) ?? ''}`);
      else ids.set(id, at);
      if (!op.summary) problems.push(`${at}: no summary`);
      const tags = op.tags as string[] | undefined;
      if (!tags?.length) problems.push(`${at}: no tags`);
      for (const t of tags ?? []) if (!declaredTags.has(t)) problems.push(`${at}: tag ${t} is not declared`);
      const responses = op.responses as Obj | undefined;
      if (!responses || Object.keys(responses).length === 0) problems.push(`${at}: no responses`);
      else if (path.startsWith('/api/') && !Object.keys(responses).some((s) => s.startsWith('4'))) problems.push(`${at}: no 4xx response`);
    }
  }
  const walk = (v: unknown, at: string): void => {
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${at}/${i}`));
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === '$ref' && typeof x === 'string') {
          const target = x.startsWith('#/') ? x.slice(2).split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~')).reduce<unknown>((o, key) => (o as Obj | undefined)?.[key], doc) : undefined;
          if (target === undefined) problems.push(`${at}: $ref ${x} does not resolve`);
        } else walk(x, `${at}/${k}`);
      }
    }
  };
  walk(doc, '#');
  return problems;
}
