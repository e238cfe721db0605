/**
 * The bearer token the browser test authorizes /docs with: the switch point between "no identity
 * plugin" (main today: nothing checks tokens, any string passes) and a real sign-in.
 */
import type { TestApp } from './test-app';

export interface Credentials {
  readonly email: string;
  readonly username: string;
  readonly password: string;
}

export const DOCS_ADMIN: Credentials = { email: 'docs-admin@example.com', username: 'docs-admin', password: 'docs-admin-password-1' };

/** Password sign-in (spec 4.1): POST /api/iam/authenticate → data.accessToken. */
export async function signIn(app: TestApp, who: Credentials): Promise<string> {
  const res = await app.http.post('/api/iam/authenticate', { email: who.email, username: '', password: who.password });
  const token = (res.body as { data?: { accessToken?: unknown } } | undefined)?.data?.accessToken;
  if (res.status !== 200 || typeof token !== 'string') throw new Error(`sign-in as ${who.username} failed: ${res.status} ${res.text.slice(0, 300)}`);
  return token;
}

/**
 * Creates DOCS_ADMIN with the admin role. The identity plugin owns users; wire its way in here
 * (e.g. its user:create / role seeding) when it merges.
 */
async function createAdmin(app: TestApp, who: Credentials): Promise<void> {
  void app;
  throw new Error(
    `tests/helpers/auth-token.ts: an authenticating plugin is enabled, so the browser test needs a real token: make createAdmin() create ${who.username} with the admin role, then it signs in through POST /api/iam/authenticate`,
  );
}

export async function bearerTokenFor(app: TestApp): Promise<string> {
  if (!app.deps.plugins.some((p) => p.authenticator)) return 'docs-test-token-no-auth-plugin';
  await createAdmin(app, DOCS_ADMIN);
  return signIn(app, DOCS_ADMIN);
}
