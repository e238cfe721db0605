/** LOCALES / DEFAULT_LOCALE (issue 14, Locales): parsed and checked once, at boot. */

/** A locale code: `en`, `fr`, `pt-BR`, `zh-Hant` (letters, one optional region or script part). `all` is reserved. */
export const LOCALE_CODE = /^[a-z]{2,3}(-[A-Za-z]{2,4})?$/;

export interface LocaleSettings {
  /** Every configured locale, in the order LOCALES lists them. */
  readonly list: readonly string[];
  /** DEFAULT_LOCALE: always one of `list`. */
  readonly defaultLocale: string;
}

/** `en,fr,de` → the list; a bad or repeated code, or `all`, is refused. */
export function parseLocales(raw: string): string[] {
  const list = raw.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  if (list.length === 0) throw new Error('at least one locale is needed (e.g. en)');
  for (const code of list) {
    if (!LOCALE_CODE.test(code) || code === 'all') throw new Error(`"${code}" is not a locale code (two or three lower-case letters, optionally -REGION: en, fr, pt-BR)`);
  }
  if (new Set(list).size !== list.length) throw new Error('a locale is listed twice');
  return list;
}

/** The two settings together: DEFAULT_LOCALE must be one of LOCALES. */
export function localeSettings(list: readonly string[], defaultLocale: string): LocaleSettings {
  if (!list.includes(defaultLocale)) throw new Error(`DEFAULT_LOCALE: "${defaultLocale}" is not one of LOCALES (${list.join(', ')})`);
  return { list, defaultLocale };
}
