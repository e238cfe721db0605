/**
 * The bearer token the browser test authorizes /docs with: the switch point between "no identity
 * plugin" (nothing checks tokens, any string passes) and a real sign-in.
 */
import type { TestApp } from './test-app';

/** The identity branch's TestApp carries its seeded admin (`admin.accessToken`); read it without depending on it. */
type WithAdmin = TestApp & { readonly admin?: { readonly accessToken: string } | null };

export async function bearerTokenFor(app: TestApp): Promise<string> {
  const admin = (app as WithAdmin).admin;
  if (admin) return admin.accessToken; // a real token of a signed-in admin
  if (!app.deps.plugins.some((p) => p.authenticator)) return 'docs-test-token-no-auth-plugin';
  throw new Error('tests/helpers/auth-token.ts: an authenticating plugin runs but the test app has no signed-in admin: sign one in (POST /api/iam/authenticate) and return its accessToken here');
}
