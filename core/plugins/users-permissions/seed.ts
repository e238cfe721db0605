/**
 * Roles and permissions, seeded idempotently at every start (issue 13 item 11):
 * - a permission per model and action of its vocabulary (`ContentType.actions`: the record actions and the
 *   attributes' `writeAction`s such as `user.assignRoles`); `admin` holds every one;
 * - `public` and `authenticated` get what the models' YAML `permissions:` grant them, and nothing else:
 *   a model without `permissions:` is admin-only.
 *
 * A restart applies the YAML as changes. Each seeded role remembers the grants the YAML gave it at the last
 * start (`role.seededPermissions`); a start grants what the YAML added since and revokes what it dropped
 * since. Grants the YAML did not change are left alone, so what an admin changed through the API or the CLI
 * stays (a YAML grant the admin revoked is not given back, a grant the admin added is not taken away) until
 * the YAML line for that grant changes. A database seeded before this bookkeeping existed keeps every grant
 * it holds; its first start records the YAML's grants as the baseline.
 *
 * The roles and permissions it creates are records (/api/role, /api/permission): each gets its
 * `record.create` in the seeding transaction, by the system (issue 15), as role:create's role does. A start
 * that creates nothing announces nothing.
 *
 * Every node seeds at its start. The seeding transaction holds the database lock `identity-seed`
 * (Dialect.lockedTransaction, as the access-rules file's): two nodes starting at once on a fresh database
 * take turns, and the second finds the roles, permissions and grants there and writes nothing (without it,
 * both read "no role yet" and the second failed its start on the unique role name or permission).
 */
import { announce, insertRows, withFolds } from '../../plugin-api';
import { PERMISSION_ROLES } from '../../registry/types';
import type { Db, IdentityStore } from './store';
import { nowIso } from './util';

export const ADMIN = 'admin';
export const AUTHENTICATED = 'authenticated';
export const PUBLIC = 'public';

const ROLES: readonly { name: string; description: string }[] = [
  { name: ADMIN, description: 'Every permission.' },
  { name: AUTHENTICATED, description: 'Default role of new users.' },
  { name: PUBLIC, description: 'Requests without a token.' },
];

/** Column of role.seededPermissions (role.yaml). */
const SEEDED = 'seeded_permissions';

const parseList = (v: unknown): Set<string> | null => (typeof v === 'string' ? new Set(v.split('\n').filter(Boolean)) : null);

export async function seed(store: IdentityStore): Promise<void> {
  const { db, registry, dialect } = store.deps;
  let appended = 0;
  await dialect.lockedTransaction(db, 'identity-seed', async (trx) => {
    const now = nowIso();
    const stamp = { created_at: now, updated_at: now };
    const haveRoles = new Set(((await trx(store.roles).select('name')) as { name: string }[]).map((r) => r.name));
    const missingRoles = ROLES.filter((r) => !haveRoles.has(r.name));
    if (missingRoles.length) {
      await insertRows(trx, store.roles, missingRoles.map((r) => withFolds(store.roleModel, { ...stamp, name: r.name, description: r.description })));
      const ids = await store.roleIds(missingRoles.map((r) => r.name), trx);
      appended += await announce(store.deps.events, trx, 'record.create', store.roleModel.name, missingRoles.map((r) => ids.get(r.name) as number));
    }

    const api = registry.contentTypes.filter((m) => m.api);
    const wanted = api.flatMap((m) => m.actions.map((a) => `${m.name}.${a}`));
    const havePerms = new Set(((await trx(store.permissions).select('action')) as { action: string }[]).map((r) => r.action));
    const fresh = wanted.filter((w) => !havePerms.has(w));
    await insertRows(trx, store.permissions, fresh.map((action) => withFolds(store.permissionModel, { ...stamp, action })));

    const permIds = new Map(((await trx(store.permissions).select('id', 'action')) as { id: number; action: string }[]).map((r) => [r.action, Number(r.id)]));
    appended += await announce(store.deps.events, trx, 'record.create', store.permissionModel.name, fresh.map((action) => permIds.get(action) as number));
    const roleRows = (await trx(store.roles).whereIn('name', [ADMIN, ...PERMISSION_ROLES]).select('id', 'name', SEEDED)) as Record<string, unknown>[];
    const roleOf = new Map(roleRows.map((r) => [String(r.name), r]));

    const admin = roleOf.get(ADMIN);
    if (admin) await grant(store, trx, Number(admin.id), [...permIds.values()]);

    for (const role of PERMISSION_ROLES) {
      const row = roleOf.get(role);
      if (!row) continue;
      const desired = new Set(api.flatMap((m) => m.grants[role].map((a) => `${m.name}.${a}`)));
      const before = parseList(row[SEEDED]) ?? new Set<string>();
      const added = [...desired].filter((p) => !before.has(p));
      const dropped = [...before].filter((p) => !desired.has(p));
      const ids = (list: readonly string[]): number[] => list.map((p) => permIds.get(p)).filter((id): id is number => id !== undefined);
      await grant(store, trx, Number(row.id), ids(added));
      await revoke(store, trx, Number(row.id), ids(dropped));
      const list = [...desired].sort().join('\n');
      // private bookkeeping (no FindOne answer shows it): no event; grants are links, not records: none either
      if (row[SEEDED] !== list) await trx(store.roles).where('id', Number(row.id)).update({ [SEEDED]: list });
    }
  });
  if (appended > 0) store.deps.events?.committed();
}

async function grant(store: IdentityStore, trx: Db, roleId: number, permissionIds: readonly number[]): Promise<void> {
  if (permissionIds.length === 0) return;
  const { table, ownerColumn, targetColumn } = store.rolePermissions;
  const held = new Set(((await trx(table).where(ownerColumn, roleId).select(targetColumn)) as Record<string, number>[]).map((r) => Number(r[targetColumn])));
  const rows = permissionIds.filter((p) => !held.has(p));
  await insertRows(trx, table, rows.map((p) => ({ [ownerColumn]: roleId, [targetColumn]: p })));
}

async function revoke(store: IdentityStore, trx: Db, roleId: number, permissionIds: readonly number[]): Promise<void> {
  if (permissionIds.length === 0) return;
  const { table, ownerColumn, targetColumn } = store.rolePermissions;
  await trx(table).where(ownerColumn, roleId).whereIn(targetColumn, [...permissionIds]).del();
}
