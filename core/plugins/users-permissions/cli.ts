/**
 * Admin CLI commands of the identity plugin: user:create, user:import, user:set-password, role:create, role:grant, role:revoke,
 * token:create, token:list, token:revoke (API tokens; the secret is printed once, by token:create).
 * Users the operator creates have their e-mail marked verified: the operator vouches for the address,
 * so a later OTP sign-in never treats their password as a stranger's (service.ts, `verified`).
 */
import type { Command } from 'commander';
import { AppError } from '../../errors/app-error';
import { NotFoundError } from '../../errors/errors';
import { UsageError } from '../../errors/usage-error';
import { announce, deleteAnnounced, withFolds } from '../../plugin-api';
import type { Registry } from '../../registry/types';
import { checkAccountFields, describeFields, userLengths } from './account-fields';
import { checkRuleInput } from './access-rules';
import { FieldCheck } from './input';
import { textFieldProblems } from './model-rules';
import { passwordProblems } from './passwords';
import type { Runtime } from './runtime';
import { AUTHENTICATED, seed } from './seed';
import { formatImport, importUsers } from './user-import';
import { insertedId, nowIso } from './util';

const list = (s: string | undefined): string[] => (s ?? '').split(/[,;|]/).map((x) => x.trim()).filter(Boolean);

function fail(message: string): never {
  throw new Error(message);
}

/** A name that names nothing (no such user, role, permission or API token): refused input, exit 2, nothing written. */
function unknown(what: string, name: string, hint = ''): never {
  throw new UsageError(`no ${what} ${/^\S(.*\S)?$/s.test(name) ? name : JSON.stringify(name)}${hint}`);
}

/** The option each API-token field is given by. */
const TOKEN_OPTIONS: Readonly<Record<string, string>> = { lifetimeDays: '--days' };

/**
 * An AppError from the API's own checks: input the API answers 400, 404 or 422 is input the CLI refuses (exit 2,
 * each field named by its option: `what` is the error's subject); anything else (409: a name already taken) exit 1.
 */
function rethrow(e: unknown, option: (field: string) => string = optionOf): never {
  if (e instanceof AppError && [400, 404, 422].includes(e.status)) {
    const fields = e.details.fields as Readonly<Record<string, readonly string[]>> | undefined;
    throw new UsageError(fields ? `${e.message}: ${describeFields(fields, option)}` : e.message);
  }
  fail(describe(e));
}

/** A field's option: fullName → --full-name. */
const optionOf = (field: string): string => `--${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** Refused input: one line naming each option and its rule, exit 2 (UsageError), before anything is written. */
function refuse(what: string, fields: Readonly<Record<string, readonly string[]>>): never {
  throw new UsageError(`invalid ${what}: ${describeFields(fields, optionOf)}`);
}

function checkPassword(p: string): void {
  const problems = passwordProblems(p);
  if (problems.length) refuse('password', { password: problems });
}

/** Every action a permission may name, as the registry declares them (record actions, draft actions, write actions such as assignRoles). */
const knownActions = (registry: Registry): string[] => [...new Set(registry.contentTypes.filter((m) => m.api).flatMap((m) => m.actions))];

function describe(e: unknown): string {
  if (e instanceof AppError) return `${e.message}${e.details.fields ? ` ${JSON.stringify(e.details.fields)}` : ''}`;
  return e instanceof Error ? e.message : String(e);
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
    .option('--roles <roles>', `comma-separated role names (none named: ${AUTHENTICATED}, the default role of new users)`)
    .action(async (o: { username: string; email: string; password: string; mobile?: string; fullName?: string; roles: string }) => {
      const rt = await runtime();
      // Registration's checks and trimming with the user model's lengths (account-fields.ts; user:import's too):
      // an `@` in a username would shadow that e-mail at sign-in, and what PostgreSQL's columns refuse is refused here.
      const check = new FieldCheck();
      const u = checkAccountFields(check, { username: o.username, email: o.email, password: o.password, fullName: o.fullName, mobile: o.mobile }, userLengths(rt.store.deps.registry)).fields ?? refuse('user', check.fields);
      await seed(rt.store);
      // CONTRACT: authenticated is the default role of new users; `--roles ''` names none, as an empty roles cell of user:import
      const roles = list(o.roles).length > 0 ? list(o.roles) : [AUTHENTICATED];
      const known = await rt.store.roleIds(roles);
      const missing = roles.filter((r) => !known.has(r));
      if (missing.length > 0) unknown(missing.length > 1 ? 'roles' : 'role', missing.join(', '));
      try {
        const id = await rt.store.createUser({ username: u.username, email: u.email, fullName: u.fullName, mobile: u.mobile, passwordHash: await rt.passwords.hash(u.password), active: true, roles, emailVerified: true });
        console.log(`created user ${id} (${u.username}) with roles ${roles.join(', ')}`);
      } catch (e) {
        rethrow(e);
      }
    });

  program
    .command('user:import <file>')
    .description('import users from a CSV (header: username,email,password,fullName,mobile,roles) or JSON array, all or nothing; reports every row')
    .option('--skip-existing', 'skip (and report) rows whose username or e-mail already belongs to a user, instead of failing them')
    .option('--no-progress', 'no progress bar')
    .action(async (file: string, o: { progress: boolean; skipExisting?: boolean }) => {
      const rt = await ready();
      const result = await importUsers(rt, file, { progress: o.progress && process.stdout.isTTY === true, skipExisting: o.skipExisting === true });
      for (const line of formatImport(result)) console.log(line);
      if (result.failed > 0) process.exitCode = 2;
    });

  program
    .command('user:set-password')
    .description("set a user's password (ends every session of the user)")
    .requiredOption('--user <usernameOrEmail>')
    .requiredOption('--password <password>')
    .action(async (o: { user: string; password: string }) => {
      const rt = await ready();
      checkPassword(o.password);
      const u = (await rt.store.userBy(o.user.includes('@') ? 'email' : 'username', o.user)) ?? unknown('user', o.user);
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
      const rt = await runtime();
      // The role model's rules (role.yaml through the registry, as /api/role checks them): required, at most 64
      // characters, no comma (--roles lists are comma-separated).
      const name = o.name.trim();
      const problems = textFieldProblems(rt.store.roleModel, 'name', name);
      if (problems.length) refuse('role', { name: problems });
      await seed(rt.store);
      const now = nowIso();
      try {
        await rt.store.db.transaction(async (trx) => {
          const id = insertedId(await trx(rt.store.roles).insert(withFolds(rt.store.roleModel, { created_at: now, updated_at: now, name, description: o.description })).returning('id'));
          await announce(rt.store.deps.events, trx, 'record.create', rt.store.roleModel.name, [id]);
        });
      } catch (e) {
        fail(describe(rt.store.asConflict(e)));
      }
      rt.store.deps.events?.committed();
      console.log(`created role ${name}`);
    });

  const grant = (revoke: boolean) => async (o: { role: string; permission: string; where?: string; fields?: string; description?: string }) => {
    const rt = await ready();
    const role = ((await rt.store.roleIds([o.role])).get(o.role)) ?? unknown('role', o.role);
    if (!revoke && (o.where !== undefined || o.fields !== undefined)) {
      // A permission on some rows or fields only (issue 16): an access rule, checked as Find checks filters.
      let where: unknown = null;
      if (o.where !== undefined) {
        try {
          where = JSON.parse(o.where);
        } catch (e) {
          throw new UsageError(`--where is not JSON: ${(e as Error).message}`);
        }
      }
      const fields = o.fields === undefined ? null : list(o.fields);
      // an empty list (an unset shell variable) would make a rule that shows no field: leave --fields out for every field
      if (fields?.length === 0) refuse('access rule', { fields: ['must name at least one field (leave it out for every field)'] });
      try {
        checkRuleInput(rt.store.deps, { action: o.permission, where, fields });
      } catch (e) {
        rethrow(e);
      }
      const id = await rt.store.db.transaction(async (trx) => {
        const made = insertedId(await trx(rt.accessRules.table).insert(rt.accessRules.row(role, o.permission, where, fields, 'api', nowIso(), o.description ?? null)).returning('id'));
        await announce(rt.store.deps.events, trx, 'record.create', rt.accessRules.model.name, [made]);
        return made;
      });
      rt.store.deps.events?.committed();
      console.log(`${o.role}: ${o.permission} granted${where !== null ? ` where ${JSON.stringify(where)}` : ''}${fields ? ` on fields ${fields.join(', ')}` : ''} (access rule ${id})`);
      return;
    }
    const perm = ((await rt.store.db(rt.store.permissions).where('action', o.permission).first('id')) as { id: number } | undefined) ?? unknown('permission', o.permission, ` (form: <model>.<${knownActions(rt.store.deps.registry).join('|')}>)`);
    const { table, ownerColumn, targetColumn } = rt.store.rolePermissions;
    const link = { [ownerColumn]: role, [targetColumn]: Number(perm.id) };
    const held = await rt.store.db(table).where(link).first();
    if (revoke) {
      if (held) await rt.store.db(table).where(link).del();
      // …and the access rules that grant it on some rows or fields (those of the rules file come back at the next start),
      // each announced as the record API's delete would be: its record as FindOne answered it just before.
      const rules = await rt.store.db.transaction(async (trx) => {
        const mine = () => trx(rt.accessRules.table).where(rt.accessRules.column('action'), o.permission).andWhere(rt.accessRules.roleColumn, role).andWhere(rt.accessRules.column('source'), 'api');
        const found = mine().orderBy('id').select('id');
        if (rt.store.deps.dialect.rowLocks) found.forUpdate(); // deleted once, announced once (SQLite: one writer anyway)
        const ids = ((await found) as { id: unknown }[]).map((r) => Number(r.id));
        if (ids.length === 0) return 0;
        await deleteAnnounced(rt.store.deps.events, trx, rt.accessRules.table, rt.accessRules.model.name, ids);
        return ids.length;
      });
      if (rules > 0) rt.store.deps.events?.committed();
      console.log(`${o.role}: ${o.permission} revoked${rules ? ` (and ${rules} access rule${rules > 1 ? 's' : ''})` : ''}`);
    } else {
      // A join row is a link, not a record: FindOne without parameters shows no to-many link, so no answer
      // changes and nothing is announced (as for the seeded grants; core/events/README.md).
      if (!held) await rt.store.db(table).insert(link);
      console.log(`${o.role}: ${o.permission} granted`);
    }
  };
  program
    .command('role:grant')
    .description('grant a permission to a role; with --where and/or --fields, on the rows a rule matches / some fields only (an access rule)')
    .requiredOption('--role <role>')
    .requiredOption('--permission <model.action>')
    .option('--where <json>', 'row-level rule: a Find filter in JSON, variables $actor.id, $actor.roles, $now, $today')
    .option('--fields <list>', 'comma-separated fields (readable for find/findOne, writable for create/update)')
    .option('--description <text>')
    .action(grant(false));
  program.command('role:revoke').description('revoke a permission from a role (its access rules too)').requiredOption('--role <role>').requiredOption('--permission <model.action>').action(grant(true));

  program
    .command('token:create')
    .description('create an API token and print its secret (shown this once)')
    .requiredOption('--name <name>')
    .requiredOption('--kind <kind>', 'read-only, full-access or custom')
    .option('--permissions <list>', 'kind custom: comma-separated <model>.<action> names')
    .option('--days <days>', 'lifetime: 7, 30 or 90 (default: unlimited)')
    .option('--description <text>')
    .action(async (o: { name: string; kind: string; permissions?: string; days?: string; description?: string }) => {
      const rt = await ready();
      const days = o.days === undefined ? null : /^\d+$/.test(o.days) ? Number(o.days) : o.days;
      try {
        // No event, as POST /api/iam/api-tokens has none: an API token is no record (api-token.yaml `api: false`:
        // no FindOne answers it, no event model covers it). Its revoke announces the access rules it takes (api-tokens.ts).
        const t = await rt.apiTokens.create({ name: o.name, kind: o.kind, description: o.description ?? null, lifetimeDays: days, ...(o.permissions !== undefined && { permissions: list(o.permissions) }) }, null);
        console.log(`created API token ${t.id} (${t.name}, ${t.kind}${t.expiresAt ? `, expires ${t.expiresAt}` : ', no expiry'}); its secret, shown only now:`);
        console.log(t.secret);
      } catch (e) {
        rethrow(e, (f) => TOKEN_OPTIONS[f] ?? optionOf(f));
      }
    });

  program
    .command('token:list')
    .description('list API tokens (never their secrets)')
    .action(async () => {
      const rt = await ready();
      for (const t of await rt.apiTokens.list()) {
        console.log(`${t.id}\t${t.name}\t${t.kind}${t.kind === 'custom' ? ` [${t.permissions.join(', ')}]` : ''}\texpires ${t.expiresAt ?? 'never'}\tlast used ${t.lastUsedAt ?? 'never'}`);
      }
    });

  program
    .command('token:revoke <idOrName>')
    .description('revoke (delete) an API token by id or name')
    .action(async (idOrName: string) => {
      const rt = await ready();
      const id = (await rt.apiTokens.idOf(idOrName)) ?? unknown('API token', idOrName);
      try {
        const t = await rt.apiTokens.revoke(id, null); // the CLI: the system
        console.log(`revoked API token ${t.id} (${t.name})`);
      } catch (e) {
        if (e instanceof NotFoundError) unknown('API token', idOrName); // an id no token has
        rethrow(e);
      }
    });
}
