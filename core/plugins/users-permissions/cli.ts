/**
 * Admin CLI commands of the identity plugin: user:create, user:import, user:set-password, role:create, role:grant, role:revoke.
 * Users the operator creates have their e-mail marked verified: the operator vouches for the address,
 * so a later OTP sign-in never treats their password as a stranger's (service.ts, `verified`).
 */
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { SingleBar, Presets } from 'cli-progress';
import type { Command } from 'commander';
import { AppError } from '../../errors/app-error';
import { withFolds } from '../../plugin-api';
import { EMAIL_PATTERN, USERNAME_PATTERN } from './input';
import { passwordProblems } from './passwords';
import type { Runtime } from './runtime';
import { AUTHENTICATED, seed } from './seed';
import { normalize, nowIso } from './util';

export const IMPORT_BATCH = 100;

const list = (s: string | undefined): string[] => (s ?? '').split(/[,;|]/).map((x) => x.trim()).filter(Boolean);

function fail(message: string): never {
  throw new Error(message);
}

function checkPassword(p: string): void {
  const problems = passwordProblems(p);
  if (problems.length) fail(`password ${problems.join(', ')}`);
}

function describe(e: unknown): string {
  if (e instanceof AppError) return `${e.message}${e.details.fields ? ` ${JSON.stringify(e.details.fields)}` : ''}`;
  return e instanceof Error ? e.message : String(e);
}

interface ImportRow {
  readonly line: number;
  readonly username: string;
  readonly email: string;
  readonly password: string;
  readonly fullName: string | null;
  readonly mobile: string | null;
  readonly roles: string[];
}

/** Minimal CSV: a header row, comma-separated, double quotes for values holding commas or quotes. */
export function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(cell), (cell = '');
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      if (row.some((x) => x !== '')) rows.push(row);
      row = [];
      cell = '';
    } else cell += c;
  }
  row.push(cell);
  if (row.some((x) => x !== '')) rows.push(row);
  const [header, ...body] = rows;
  if (!header) return [];
  const keys = header.map((h) => h.trim());
  return body.map((r) => Object.fromEntries(keys.map((k, i) => [k, (r[i] ?? '').trim()])));
}

function readRows(file: string): Record<string, unknown>[] {
  const text = readFileSync(file, 'utf8');
  if (extname(file).toLowerCase() === '.json') {
    const data = JSON.parse(text) as unknown;
    if (!Array.isArray(data)) fail(`${file}: a JSON import must be an array of users`);
    return data as Record<string, unknown>[];
  }
  return parseCsv(text);
}

export async function importUsers(rt: Runtime, file: string, opts: { progress: boolean }): Promise<{ created: number; rejected: { line: number; reason: string }[] }> {
  const raw = readRows(file);
  const rejected: { line: number; reason: string }[] = [];
  const seen = new Set<string>();
  const valid: ImportRow[] = [];
  raw.forEach((r, i) => {
    const line = i + 1;
    const str = (k: string): string => (typeof r[k] === 'string' ? (r[k] as string).trim() : r[k] === undefined || r[k] === null ? '' : String(r[k]));
    const username = str('username');
    const email = str('email');
    const password = typeof r.password === 'string' ? r.password : '';
    const roles = Array.isArray(r.roles) ? (r.roles as unknown[]).map(String) : list(str('roles'));
    const problems: string[] = [];
    if (!USERNAME_PATTERN.test(username)) problems.push('username is missing or invalid');
    if (!EMAIL_PATTERN.test(email)) problems.push('email is missing or invalid');
    problems.push(...passwordProblems(password).map((p) => `password ${p}`));
    for (const key of [`u:${normalize(username)}`, `e:${normalize(email)}`]) {
      if (seen.has(key)) problems.push(`${key.startsWith('u') ? 'username' : 'email'} appears twice in the file`);
      seen.add(key);
    }
    if (problems.length) rejected.push({ line, reason: problems.join('; ') });
    else valid.push({ line, username, email, password, fullName: str('fullName') || null, mobile: str('mobile') || null, roles: roles.length ? roles : [AUTHENTICATED] });
  });
  const bar = opts.progress ? new SingleBar({ format: 'importing users [{bar}] {value}/{total}' }, Presets.shades_classic) : null;
  bar?.start(raw.length, rejected.length);
  let created = 0;
  for (let i = 0; i < valid.length; i += IMPORT_BATCH) {
    const batch = valid.slice(i, i + IMPORT_BATCH);
    const hashed = await Promise.all(batch.map((u) => rt.passwords.hash(u.password)));
    let done = 0;
    try {
      // One transaction per batch: a failure inside leaves the batch unwritten and reports each row.
      await rt.store.db.transaction(async (trx) => {
        for (const [j, u] of batch.entries()) {
          try {
            await rt.store.createUser({ username: u.username, email: u.email, fullName: u.fullName, mobile: u.mobile, passwordHash: hashed[j], active: true, roles: u.roles, emailVerified: true }, trx);
          } catch (e) {
            throw Object.assign(new Error(describe(e)), { line: u.line });
          }
        }
      });
      done = batch.length;
    } catch (e) {
      const at = (e as { line?: number }).line;
      for (const u of batch) rejected.push({ line: u.line, reason: u.line === at ? describe(e) : 'batch rolled back (another row of it failed)' });
    }
    created += done;
    bar?.increment(batch.length);
  }
  bar?.stop();
  rejected.sort((a, b) => a.line - b.line);
  return { created, rejected };
}

export function registerIdentityCli(program: Command, runtime: () => Promise<Runtime>): void {
  const ready = async (): Promise<Runtime> => {
    const rt = await runtime();
    await seed(rt.store);
    return rt;
  };

  program
    .command('user:create')
    .description('create an active user')
    .requiredOption('--username <username>')
    .requiredOption('--email <email>')
    .requiredOption('--password <password>')
    .option('--mobile <mobile>')
    .option('--full-name <fullName>')
    .option('--roles <roles>', 'comma-separated role names', AUTHENTICATED)
    .action(async (o: { username: string; email: string; password: string; mobile?: string; fullName?: string; roles: string }) => {
      const rt = await ready();
      checkPassword(o.password);
      try {
        const id = await rt.store.createUser({ username: o.username, email: o.email, mobile: o.mobile ?? null, fullName: o.fullName ?? null, passwordHash: await rt.passwords.hash(o.password), active: true, roles: list(o.roles), emailVerified: true });
        console.log(`created user ${id} (${o.username}) with roles ${list(o.roles).join(', ')}`);
      } catch (e) {
        fail(describe(e));
      }
    });

  program
    .command('user:import <file>')
    .description('import users from a CSV (header: username,email,password,fullName,mobile,roles) or JSON array; one transaction per batch')
    .option('--no-progress', 'no progress bar')
    .action(async (file: string, o: { progress: boolean }) => {
      const rt = await ready();
      const { created, rejected } = await importUsers(rt, file, { progress: o.progress && process.stdout.isTTY === true });
      console.log(`created ${created} users, rejected ${rejected.length}`);
      for (const r of rejected) console.log(`  row ${r.line}: ${r.reason}`);
      if (rejected.length) process.exitCode = 2;
    });

  program
    .command('user:set-password')
    .description("set a user's password (ends every session of the user)")
    .requiredOption('--user <usernameOrEmail>')
    .requiredOption('--password <password>')
    .action(async (o: { user: string; password: string }) => {
      const rt = await ready();
      checkPassword(o.password);
      const u = (await rt.store.userBy(o.user.includes('@') ? 'email' : 'username', o.user)) ?? fail(`no user ${o.user}`);
      await rt.store.updateUser(u.id, { password: await rt.passwords.hash(o.password), force_password_change: false });
      await rt.sessions.revokeAll(u.id, 'password-set-by-admin');
      console.log(`password of ${u.username} set; every session ended`);
    });

  program
    .command('role:create')
    .description('create a role')
    .requiredOption('--name <name>')
    .option('--description <text>', '', '')
    .action(async (o: { name: string; description: string }) => {
      const rt = await ready();
      const now = nowIso();
      try {
        await rt.store.db(rt.store.roles).insert(withFolds(rt.store.roleModel, { created_at: now, updated_at: now, name: o.name.trim(), description: o.description }));
      } catch (e) {
        fail(describe(rt.store.asConflict(e)));
      }
      console.log(`created role ${o.name.trim()}`);
    });

  const grant = (revoke: boolean) => async (o: { role: string; permission: string }) => {
    const rt = await ready();
    const role = ((await rt.store.roleIds([o.role])).get(o.role)) ?? fail(`no role ${o.role}`);
    const perm = ((await rt.store.db(rt.store.permissions).where('action', o.permission).first('id')) as { id: number } | undefined) ?? fail(`no permission ${o.permission} (form: <model>.<find|findOne|create|update|delete|recover>)`);
    const { table, ownerColumn, targetColumn } = rt.store.rolePermissions;
    const link = { [ownerColumn]: role, [targetColumn]: Number(perm.id) };
    const held = await rt.store.db(table).where(link).first();
    if (revoke) {
      if (held) await rt.store.db(table).where(link).del();
      console.log(`${o.role}: ${o.permission} revoked`);
    } else {
      if (!held) await rt.store.db(table).insert(link);
      console.log(`${o.role}: ${o.permission} granted`);
    }
  };
  program.command('role:grant').description('grant a permission to a role').requiredOption('--role <role>').requiredOption('--permission <model.action>').action(grant(false));
  program.command('role:revoke').description('revoke a permission from a role').requiredOption('--role <role>').requiredOption('--permission <model.action>').action(grant(true));
}
