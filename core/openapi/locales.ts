/** OpenAPI pieces of locales (issue 14): the `locale` parameter, `localizations` in answers. */
import { LOCALE_CODE } from '../../config/locales';
import type { Schema } from './types';

/** Which `locale=` a route of an i18n model takes. */
export type LocaleUse = 'list' | 'byId' | 'write' | 'remove' | 'recover' | 'localization' | 'publish';

const ABOUT: Record<LocaleUse, string> = {
  list: 'One of the configured locales (LOCALES), or `all` for every locale. Default: DEFAULT_LOCALE. Unknown or unconfigured → 400 naming the allowed ones.',
  byId: 'The locale of the entry to read: `{id}` may name any locale row of the entry. Absent: the row `{id}` names.',
  write: 'Create: the locale of the new entry (default DEFAULT_LOCALE). Update: the locale of the entry to change (`{id}` may name any of its rows; absent: the row `{id}` names). Values of `localized: false` attributes and relations go to every locale of the entry.',
  remove:
    'What goes: absent → the row `{id}` names; a code → that locale of the entry; `all` → every locale of the entry (bulk: for each id; one answer per id, the record it names). The default-locale row alone is refused (409) while the entry has other active locales.',
  recover:
    'What comes back: absent → the row `{id}` names; a code → that archived locale of the entry; `all` → every archived locale (bulk: for each id; one answer per id, the record it names). Another locale alone is refused (409) while the default-locale row is archived.',
  localization: 'Required: the locale to create (one of LOCALES, not yet held by the entry).',
  publish:
    'Models with draft & publish and locales: absent → the row `{id}` names; a code → that locale of the entry; `all` → every locale of the entry (bulk: of each entry). The entry\'s first row is published first and unpublished last: publishing another locale while it has no published copy, or unpublishing it while other locales are published, is refused (409). Publishing any locale publishes the entry\'s shared values (`localized: false` fields and relations) to its other published locales.',
};

export function localeParameter(use: LocaleUse): Record<string, unknown> {
  const all = use === 'list' || use === 'remove' || use === 'recover' || use === 'publish';
  return {
    name: 'locale',
    in: 'query',
    required: use === 'localization',
    description: ABOUT[use],
    schema: all ? { anyOf: [{ type: 'string', pattern: LOCALE_CODE.source }, { const: 'all' }] } : { type: 'string', pattern: LOCALE_CODE.source },
    example: 'fr',
  };
}

/** `localizations` on a record of an i18n model. */
export const LOCALIZATIONS_PROPERTY: Schema = {
  type: 'array',
  readOnly: true,
  description: "The entry's other active locales (models with i18n: true).",
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'locale'],
    properties: { id: { type: 'integer' }, locale: { type: 'string' } },
  },
};

/** Routes (`<method> <path>` of RECORD_ROUTES) that take `locale`, for an i18n model. */
export const LOCALE_USES: Readonly<Record<string, LocaleUse>> = {
  'get ': 'list',
  'get /:id': 'byId',
  'post ': 'write',
  'post /bulk': 'write',
  'put /:id': 'write',
  'patch /:id': 'write',
  'delete /:id': 'remove',
  'delete /bulk': 'remove',
  'post /recover/:id': 'recover',
  'post /recover/bulk': 'recover',
  'post /:id/localizations': 'localization',
};
