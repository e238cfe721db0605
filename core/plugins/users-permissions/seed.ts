/**
 * Roles and permissions, seeded idempotently at every start: a permission per model and record action;
 * `admin` holds all; `authenticated` gets find + findOne on non-internal models when those permissions
 * are first created (later removals by an admin stick); `public` gets nothing.
 */
import { RECORD_ACTIONS, withFolds } from '../../plugin-api';
import type { IdentityStore } from './store';
import { nowIso } from './util';

export const ADMIN = 'admin';
export const AUTHENTICATED = 'authenticated';
export const PUBLIC = 'public';

const ROLES: readonly { name: string; description: string }[] = [
  { name: ADMIN, description: 'Every permission.' },
  { name: AUTHENTICATED, description: 'Default role of new users.' },
  { name: PUBLIC, description: 'Requests without a token.' },
];

export async function seed(store: IdentityStore): Promise<void> {
  const { db, registry } = store.deps;
  await db.transaction(async (trx) => {
    const now = nowIso();
    const stamp = { created_at: now, updated_at: now };
    const haveRoles = new Set(((await trx(store.roles).select('name')) as { name: string }[]).map((r) => r.name));
    const missingRoles = ROLES.filter((r) => !haveRoles.has(r.name));
    if (missingRoles.length) await trx(store.roles).insert(missingRoles.map((r) => withFolds(store.roleModel, { ...stamp, name: r.name, description: r.description })));

    const wanted = registry.contentTypes.filter((m) => m.api).flatMap((m) => RECORD_ACTIONS.map((a) => ({ action: `${m.name}.${a}`, model: m, verb: a })));
    const havePerms = new Set(((await trx(store.permissions).select('action')) as { action: string }[]).map((r) => r.action));
    const fresh = wanted.filter((w) => !havePerms.has(w.action));
    if (fresh.length) await trx(store.permissions).insert(fresh.map((w) => withFolds(store.permissionModel, { ...stamp, action: w.action })));

    const roleIds = await store.roleIds([ADMIN, AUTHENTICATED], trx);
    const permIds = new Map(((await trx(store.permissions).select('id', 'action')) as { id: number; action: string }[]).map((r) => [r.action, Number(r.id)]));
    const { table, ownerColumn, targetColumn } = store.rolePermissions;
    const grant = async (role: string, actions: readonly string[]): Promise<void> => {
      const roleId = roleIds.get(role);
      if (roleId === undefined || actions.length === 0) return;
      const held = new Set(((await trx(table).where(ownerColumn, roleId).select(targetColumn)) as Record<string, number>[]).map((r) => Number(r[targetColumn])));
      const rows = actions.map((a) => permIds.get(a)).filter((id): id is number => id !== undefined && !held.has(id));
      if (rows.length) await trx(table).insert(rows.map((p) => ({ [ownerColumn]: roleId, [targetColumn]: p })));
    };
    await grant(ADMIN, [...permIds.keys()]);
    await grant(AUTHENTICATED, fresh.filter((w) => !w.model.internal && (w.verb === 'find' || w.verb === 'findOne')).map((w) => w.action));
  });
}
