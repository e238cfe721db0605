/**
 * `user:import`: users from a CSV or JSON file, all or nothing.
 *
 * Every row is checked first (format, duplicates in the file, unknown roles, users already in the
 * database); when any row fails, nothing is written and every row's outcome is reported, so the
 * file can be fixed and the same command run again. Otherwise the users are written in ONE
 * transaction (the house rule for bulk writes): a failure there (another process taking a name in
 * the meantime) rolls the whole import back. With `skipExisting`, a row whose username or e-mail
 * already belongs to a user is skipped (and reported) instead of failing: an import that was partly
 * done before can be run again as is.
 */
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { Presets, SingleBar } from 'cli-progress';
import { checkAccountFields, describeFields, type UserLengths, userLengths } from './account-fields';
import { FieldCheck } from './input';
import type { Runtime } from './runtime';
import { AUTHENTICATED } from './seed';
import { normalize, normalizeMobile } from './util';

export type RowOutcome = 'created' | 'skipped' | 'failed' | 'not written';

export interface RowReport {
  /** Where the row is: `line 3` of a CSV file (where its record starts), `item 2` of a JSON array. */
  readonly at: string;
  readonly username: string;
  readonly outcome: RowOutcome;
  /** Why it failed or was skipped; the new user's id when created. */
  readonly detail: string;
}

export interface ImportResult {
  readonly rows: readonly RowReport[];
  readonly created: number;
  readonly skipped: number;
  readonly failed: number;
}

/** A file the import cannot read at all (exit 1, one line). */
export class ImportFileError extends Error {}

interface SourceRow {
  readonly at: string;
  readonly data: Record<string, unknown>;
}

interface Candidate {
  readonly at: string;
  readonly username: string;
  readonly email: string;
  readonly password: string;
  readonly fullName: string | null;
  readonly mobile: string | null;
  readonly roles: string[];
}

const list = (s: string): string[] => s.split(/[,;|]/).map((x) => x.trim()).filter(Boolean);

/**
 * Minimal CSV: a header row, comma-separated, double quotes for values holding commas, quotes or
 * line breaks. Each record carries the line it starts on (quoted line breaks count), for reports.
 */
export function parseCsv(text: string): { line: number; values: Record<string, string> }[] {
  const records: { line: number; cells: string[] }[] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text; // a spreadsheet's byte-order mark
  const endRecord = (): void => {
    row.push(cell);
    if (row.some((x) => x.trim() !== '')) records.push({ line: start, cells: row });
    row = [];
    cell = '';
  };
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    const newline = c === '\n' || (c === '\r' && body[i + 1] !== '\n');
    if (quoted) {
      if (c === '"' && body[i + 1] === '"') (cell += '"'), i++;
      else if (c === '"') quoted = false;
      else cell += c;
      if (newline) line++;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(cell), (cell = '');
    else if (newline) {
      endRecord();
      line++;
      start = line;
    } else if (c !== '\r') cell += c; // the \r of \r\n: its \n ends the record
  }
  endRecord();
  const [header, ...rest] = records;
  if (!header) return [];
  const keys = header.cells.map((h) => h.trim());
  return rest.map((r) => ({ line: r.line, values: Object.fromEntries(keys.map((k, i) => [k, (r.cells[i] ?? '').trim()])) }));
}

function readRows(file: string): SourceRow[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ImportFileError(`${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  if (extname(file).toLowerCase() !== '.json') return parseCsv(text).map((r) => ({ at: `line ${r.line}`, data: r.values }));
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new ImportFileError(`${file}: not valid JSON (${(e as Error).message})`);
  }
  if (!Array.isArray(data)) throw new ImportFileError(`${file}: a JSON import must be an array of users`);
  return data.map((d: unknown, i) => ({ at: `item ${i + 1}`, data: typeof d === 'object' && d !== null && !Array.isArray(d) ? (d as Record<string, unknown>) : {} }));
}

const describe = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * Format, lengths, duplicates inside the file: the problems of one row that need no database. The fields are
 * checked as registration and user:create check them (account-fields.ts), so the import stores nothing they refuse.
 */
function checkRow(r: SourceRow, seen: Set<string>, lengths: UserLengths): { candidate: Candidate | null; problems: string[] } {
  const str = (k: string): string => {
    const v = r.data[k];
    return typeof v === 'string' ? v.trim() : v === undefined || v === null ? '' : String(v);
  };
  const roles = Array.isArray(r.data.roles) ? (r.data.roles as unknown[]).map(String) : list(str('roles'));
  const check = new FieldCheck();
  const { fields } = checkAccountFields(check, r.data, lengths);
  const problems = Object.keys(check.fields).length ? [describeFields(check.fields)] : [];
  const username = fields?.username ?? str('username');
  const email = fields?.email ?? str('email');
  const mobile = fields?.mobile ?? str('mobile');
  for (const [what, key] of [['username', `u:${normalize(username)}`], ['email', `e:${normalize(email)}`], ['mobile', `m:${normalizeMobile(mobile)}`]] as const) {
    if (key.length > 2 && seen.has(key)) problems.push(`${what} appears twice in the file`);
    seen.add(key);
  }
  const candidate = fields && { at: r.at, ...fields, roles: roles.length ? roles : [AUTHENTICATED] };
  return { candidate: problems.length ? null : candidate, problems };
}

export async function importUsers(rt: Runtime, file: string, opts: { progress: boolean; skipExisting: boolean }): Promise<ImportResult> {
  const source = readRows(file);
  const seen = new Set<string>();
  const lengths = userLengths(rt.store.deps.registry);
  const checked = source.map((r) => ({ r, ...checkRow(r, seen, lengths) }));
  const knownRoles = await rt.store.roleIds([...new Set(checked.flatMap((c) => c.candidate?.roles ?? []))]);
  const reports = new Map<string, RowReport>();
  const toCreate: Candidate[] = [];
  for (const { r, candidate, problems } of checked) {
    if (!candidate) {
      reports.set(r.at, { at: r.at, username: String(r.data.username ?? '').trim(), outcome: 'failed', detail: problems.join('; ') });
      continue;
    }
    const { at, username } = candidate;
    const taken: string[] = [];
    if (await rt.store.userBy('username', username)) taken.push(`username ${username}`);
    if (await rt.store.userBy('email', candidate.email)) taken.push(`email ${candidate.email}`);
    if (taken.length && opts.skipExisting) {
      reports.set(at, { at, username, outcome: 'skipped', detail: `${taken.join(' and ')} already exist${taken.length === 1 ? 's' : ''}` });
      continue;
    }
    for (const t of taken) problems.push(`${t} is already taken (--skip-existing skips it)`);
    if (candidate.mobile && (await rt.store.userBy('mobile', candidate.mobile))) problems.push(`mobile ${candidate.mobile} is already taken`);
    const unknown = candidate.roles.filter((n) => !knownRoles.has(n));
    if (unknown.length) problems.push(`unknown role ${unknown.join(', ')}`);
    if (problems.length) reports.set(at, { at, username, outcome: 'failed', detail: problems.join('; ') });
    else toCreate.push(candidate);
  }

  const failedBefore = [...reports.values()].some((r) => r.outcome === 'failed');
  if (!failedBefore && toCreate.length) {
    const bar = opts.progress ? new SingleBar({ format: 'hashing passwords [{bar}] {value}/{total}' }, Presets.shades_classic) : null;
    bar?.start(toCreate.length, 0);
    const hashes: string[] = [];
    for (const u of toCreate) {
      hashes.push(await rt.passwords.hash(u.password));
      bar?.increment();
    }
    bar?.stop();
    const ids = new Map<string, number>();
    const writing: { at: string | null } = { at: null };
    try {
      await rt.store.db.transaction(async (trx) => {
        for (const [i, u] of toCreate.entries()) {
          writing.at = u.at;
          ids.set(u.at, await rt.store.createUser({ username: u.username, email: u.email, fullName: u.fullName, mobile: u.mobile, passwordHash: hashes[i], active: true, roles: u.roles, emailVerified: true }, trx));
        }
      });
      // their user.create events committed with them: tell the server nodes now (the signal), not at their next look
      rt.store.deps.events?.committed();
    } catch (e) {
      // Rolled back: nobody was created. The row being written failed; the others are "not written".
      ids.clear();
      const u = toCreate.find((c) => c.at === writing.at);
      if (u) reports.set(u.at, { at: u.at, username: u.username, outcome: 'failed', detail: describe(e) });
      else throw e;
    }
    for (const u of toCreate) {
      const id = ids.get(u.at);
      if (id !== undefined) reports.set(u.at, { at: u.at, username: u.username, outcome: 'created', detail: `id ${id}` });
    }
  }
  for (const u of toCreate) if (!reports.has(u.at)) reports.set(u.at, { at: u.at, username: u.username, outcome: 'not written', detail: 'another row failed: nothing was written' });

  const rows = source.map((r) => reports.get(r.at) as RowReport);
  const count = (o: RowOutcome): number => rows.filter((r) => r.outcome === o).length;
  return { rows, created: count('created'), skipped: count('skipped'), failed: count('failed') };
}

/** The report: one line per row, then a summary line. */
export function formatImport(result: ImportResult): string[] {
  const lines = result.rows.map((r) => {
    const who = r.username ? ` ${r.username}` : '';
    return `${r.at}: ${r.outcome}${who}${r.detail ? ` (${r.detail})` : ''}`;
  });
  if (result.failed > 0) {
    lines.push(`nothing written: ${result.failed} of ${result.rows.length} rows failed (the import is one transaction); fix them and run the same command again`);
  } else {
    lines.push(`imported: ${result.created} created, ${result.skipped} skipped`);
  }
  return lines;
}
