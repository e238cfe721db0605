/**
 * A model's permission vocabulary and its YAML `permissions:` (pure; build.ts calls it). The vocabulary is
 * the record actions plus every attribute's `writeAction`; `permissions:` grants some of them to the seeded
 * roles `public` and `authenticated`. Without `permissions:` nobody but admin may do anything (issue 13
 * item 11: a new model is not readable by every signed-in user at once).
 */
import type { RawContentType } from './meta-schema';
import { type Attribute, DRAFT_ACTIONS, PERMISSION_ROLES, type PermissionRole, RECORD_ACTIONS } from './types';

export interface ModelPermissions {
  readonly actions: readonly string[];
  readonly grants: Readonly<Record<PermissionRole, readonly string[]>>;
}

/** `fail(path, problem)` throws the boot error naming the file. */
export function buildPermissions(raw: RawContentType, attributes: readonly Attribute[], fail: (path: string, problem: string) => never): ModelPermissions {
  const actions: string[] = [...RECORD_ACTIONS, ...(raw.draftAndPublish === true ? DRAFT_ACTIONS : [])];
  for (const a of attributes) if (a.writeAction !== undefined && !actions.includes(a.writeAction)) actions.push(a.writeAction);
  const declared = raw.permissions ?? {};
  if (raw.api === false && Object.values(declared).some((list) => list && list.length > 0)) {
    fail('permissions', 'a model without an API (api: false) has no permissions to grant');
  }
  const grants = Object.fromEntries(
    PERMISSION_ROLES.map((role) => {
      const list = declared[role] ?? [];
      list.forEach((action, i) => {
        if (!actions.includes(action)) fail(`permissions.${role}.${i}`, `unknown action "${action}" (actions of this model: ${actions.join(', ')})`);
      });
      return [role, [...list]];
    }),
  ) as Record<PermissionRole, string[]>;
  return { actions, grants };
}

/** Checks an attribute's `writable` / `writeAction` (build.ts): path is `attributes.<name>`. */
export function checkWriteOptions(
  raw: { readonly writable?: boolean; readonly writeAction?: string; readonly required?: boolean; readonly default?: unknown },
  path: string,
  fail: (path: string, problem: string) => never,
): { writable?: false; writeAction?: string } {
  const writable = raw.writable ?? true;
  const writeAction = raw.writeAction ?? null;
  if (writeAction !== null && ([...RECORD_ACTIONS, ...DRAFT_ACTIONS] as readonly string[]).includes(writeAction)) {
    fail(`${path}.writeAction`, `"${writeAction}" is a record action; name an action of its own (such as assignRoles)`);
  }
  if (!writable && writeAction !== null) fail(`${path}.writeAction`, 'an attribute that is not writable (writable: false) has no write action');
  if (!writable && raw.required && raw.default === undefined) fail(`${path}.writable`, 'a required attribute without a default must be writable');
  return { ...(!writable && { writable: false }), ...(writeAction !== null && { writeAction }) };
}
