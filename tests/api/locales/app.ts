/** The test app of the locale suites (issue 14): the locale fixture models, LOCALES=en,fr,de, DEFAULT_LOCALE=en. */
import { join } from 'node:path';
import type { TestDialect } from '../../helpers/dialects';
import { ROOT, startTestApp, type TestApp } from '../../helpers/test-app';

export const LOCALE_MODELS = join(ROOT, 'tests', 'fixtures', 'locale-models');

export function startLocaleApp(dialect: TestDialect, env: Record<string, string> = {}): Promise<TestApp> {
  return startTestApp(dialect, { contentTypesDir: LOCALE_MODELS, env: { LOCALES: 'en,fr,de', DEFAULT_LOCALE: 'en', ...env } });
}

/** `[{id, locale}]` sorted by locale, for comparisons. */
export function byLocale(list: readonly { id: number; locale: string }[]): { id: number; locale: string }[] {
  return [...list].sort((a, b) => a.locale.localeCompare(b.locale));
}
