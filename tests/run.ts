/**
 * `npm test`: one mocha per database of TEST_DIALECTS (default sqlite,postgres,mysql), as many at once
 * as the machine has cores (TEST_PARALLEL overrides).
 * The first database runs the whole suite (.mocharc.yml: unit, db, api, browser); each further one the
 * database-bound part (.mocharc.databases.yml: db, api), so unit and browser tests run once. In one
 * process the three databases take about 1.5× as long as two; two at a time on two cores the run takes
 * about the longest one plus the third. TEST_PARALLEL=1 runs them one after the other.
 * Each mocha's output is kept and printed whole when it ends (interleaved spec output is unreadable);
 * the closing lines say `<database>: N passed, N failed`, and the exit status is non-zero when any failed.
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_TEST_DIALECTS } from './helpers/dialects';

const ROOT = join(__dirname, '..', '..');

interface Run {
  readonly dialect: string;
  readonly code: number;
  readonly summary: string;
  readonly seconds: number;
  /** mocha's list of failures ("N failing" and what follows), empty when none failed. */
  readonly failures: string;
}

/** The part of a mocha spec output that lists its failures, at most `max` characters of it. */
function failuresOf(text: string, max = 8000): string {
  const start = text.search(/^\s*\d+ failing\s*$/m);
  if (start < 0) return '';
  const section = text.slice(start).replace(/\n\d+ passed, \d+ failed\s*$/, '').trim();
  return section.length > max ? `${section.slice(0, max)}\n… (${section.length - max} more characters above)` : section;
}

function runOne(dialect: string, config: string): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js'), '--config', config], {
      cwd: ROOT,
      env: { ...process.env, TEST_DIALECTS: dialect },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => out.push(d));
    child.on('close', (code, signal) => {
      const text = Buffer.concat(out).toString('utf8');
      const seconds = Math.round((Date.now() - started) / 1000);
      process.stdout.write(`\n===== ${dialect} (${config}, ${seconds} s) =====\n${text}\n`);
      const summary = /(\d+ passed, \d+ failed)\s*$/.exec(text)?.[1] ?? `no summary (exit ${code ?? signal})`;
      resolve({ dialect, code: code ?? 1, summary, seconds, failures: failuresOf(text) });
    });
  });
}

async function main(): Promise<void> {
  const dialects = (process.env.TEST_DIALECTS ?? DEFAULT_TEST_DIALECTS).split(',').map((s) => s.trim()).filter(Boolean);
  // One mocha per core: a third one beside two others on two cores starved the spawnSync-heavy CLI
  // tests past their 20 s timeouts on a loaded machine; the third starts when one ends.
  const parallel = Math.max(1, Number(process.env.TEST_PARALLEL ?? availableParallelism()) || 1);
  const jobs = dialects.map((d, i) => () => runOne(d, i === 0 ? '.mocharc.yml' : '.mocharc.databases.yml'));
  const runs: Run[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) runs.push(await jobs[next++]());
  };
  await Promise.all(Array.from({ length: Math.min(parallel, jobs.length) }, worker));
  // CI keeps only the tail of the output: repeat each database's failures last, where it reads them.
  for (const r of runs) if (r.failures) process.stdout.write(`\n===== ${r.dialect}: failures =====\n${r.failures}\n`);
  process.stdout.write('\n');
  for (const r of runs) process.stdout.write(`${r.dialect}: ${r.summary} (${r.seconds} s)\n`);
  process.exitCode = runs.some((r) => r.code !== 0) ? 1 : 0;
}

void main();
