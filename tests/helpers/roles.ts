/** Roles with chosen permissions, made through the admin's record API (role + permission models). */
import qs from 'qs';
import type { TestApp, TestUser } from './test-app';

/** Makes role `name` holding exactly `actions` (`<model>.<action>`); throws when one does not exist. */
export async function makeRole(app: TestApp, name: string, actions: readonly string[]): Promise<number> {
  const query = qs.stringify({ filters: { action: { $in: actions } }, limit: 100 }, { encodeValuesOnly: true });
  const found = (await app.http.get(`/api/permission?${query}`)).body.records as { id: number; action: string }[];
  const missing = actions.filter((a) => !found.some((p) => p.action === a));
  if (missing.length) throw new Error(`no permission ${missing.join(', ')}`);
  const res = await app.http.post('/api/role', { name, permissions: found.map((p) => p.id) });
  if (res.status !== 200) throw new Error(`role ${name}: ${res.status} ${res.text}`);
  return res.body.data.id as number;
}

/** A signed-in user holding only role `name`, made with `actions`. */
export async function userWith(app: TestApp, name: string, actions: readonly string[]): Promise<TestUser> {
  await makeRole(app, name, actions);
  return app.createUser({ roles: [name] });
}

/** The actions role `name` holds now. */
export async function actionsOf(app: TestApp, name: string): Promise<string[]> {
  const query = qs.stringify({ filters: { roles: { name: { $eq: name } } }, fields: ['action'], limit: 100 }, { encodeValuesOnly: true });
  const res = await app.http.get(`/api/permission?${query}`);
  if (res.status !== 200) throw new Error(`permissions of ${name}: ${res.status} ${res.text}`);
  return (res.body.records as { action: string }[]).map((p) => p.action).sort();
}
