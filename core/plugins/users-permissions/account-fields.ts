/**
 * A new account's fields, checked one way wherever an account is made with a password: POST /api/iam/register,
 * `user:create` and `user:import`. Formats and trimming are registration's (input.ts FieldCheck: username,
 * e-mail and mobile trimmed, full name and password as given); each length is the user model's `maxLength`
 * (user.yaml, read from the registry), so no path stores what another path or another database refuses.
 */
import type { Registry } from '../../registry/types';
import { type Body, FieldCheck } from './input';
import { passwordProblems } from './passwords';

export interface AccountFields {
  readonly username: string;
  readonly email: string;
  readonly password: string;
  readonly fullName: string | null;
  readonly mobile: string | null;
}

const ACCOUNT_FIELDS = ['username', 'email', 'password', 'fullName', 'mobile'] as const;

/** The user model's `maxLength` per field (user.yaml through the registry). */
export type UserLengths = ReadonlyMap<string, number>;

export function userLengths(registry: Registry): UserLengths {
  const limits = new Map<string, number>();
  for (const a of registry.get('user')?.attributes ?? []) if (a.kind === 'scalar' && a.maxLength !== undefined) limits.set(a.name, a.maxLength);
  return limits;
}

/**
 * Checks `body`'s account fields into `check` (every problem, by field). Returns the values (trimmed where
 * registration trims) when none of them failed, else null; `email` is given either way (the rate limit's key).
 */
export function checkAccountFields(check: FieldCheck, body: Body, lengths: UserLengths): { fields: AccountFields | null; email: string | undefined } {
  const email = check.email(body, 'email', true, lengths.get('email'));
  const username = check.username(body, 'username', true, lengths.get('username'));
  const password = check.string(body, 'password', { required: true });
  if (password !== undefined) for (const p of passwordProblems(password)) check.fail('password', p);
  const fullName = check.string(body, 'fullName', { max: lengths.get('fullName') });
  const mobile = check.mobile(body, 'mobile', false, lengths.get('mobile'));
  const ok = !ACCOUNT_FIELDS.some((f) => Object.hasOwn(check.fields, f)) && username !== undefined && email !== undefined && password !== undefined;
  return { fields: ok ? { username, email, password, fullName: fullName ?? null, mobile: mobile ?? null } : null, email };
}

/** `field message; field message`: a FieldCheck's problems on one line, each field named by `label`. */
export function describeFields(fields: Readonly<Record<string, readonly string[]>>, label: (field: string) => string = (f) => f): string {
  return Object.entries(fields).flatMap(([f, messages]) => messages.map((m) => `${label(f)} ${m}`)).join('; ');
}
