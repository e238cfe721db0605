import type { Command } from 'commander';
import type { LocaleSettings } from '../../config/locales';
import type { ContentType } from '../../core/registry/types';
import { cliDeps } from '../boot';

/** Issue 14: `locales en,fr,de (default en)` for a model with i18n: true. */
function localesFlag(ct: ContentType, locales: LocaleSettings): string | false {
  return ct.i18n && `locales ${locales.list.join(',')} (default ${locales.defaultLocale})`;
}

export function registerContentTypes(program: Command): void {
  program
    .command('content-types:list')
    .description('list the models of the registry with their fields')
    .option('--json', 'print the registry as JSON')
    .action((opts: { json?: boolean }) => {
      const { registry, config } = cliDeps();
      if (opts.json) {
        console.log(JSON.stringify(registry.contentTypes.map((c) => ({ ...c, draftAndPublish: c.draftAndPublish === true, byName: undefined })), null, 2));
        return;
      }
      for (const ct of registry.contentTypes) {
        const flags = [ct.softDelete && 'soft delete', ct.draftAndPublish === true && 'drafts (draft & publish)', ct.userKey && `user key ${ct.userKey}`, ct.plugin && `plugin ${ct.plugin}`, localesFlag(ct, config.locales)].filter(Boolean).join(', ');
        console.log(`${ct.name}  (table ${ct.table}${flags ? `; ${flags}` : ''})  ${ct.source}`);
        for (const a of ct.attributes) {
          const type = a.kind === 'scalar' ? a.type : a.kind === 'media' ? `media${a.multiple ? '[]' : ''}` : `${a.relation} → ${a.target}`;
          const opts2 = [a.required && 'required', a.kind === 'scalar' && a.unique && 'unique', a.private && 'private', ct.i18n && a.localized === false && 'shared by every locale'].filter(Boolean).join(' ');
          console.log(`  ${a.name}: ${type}${opts2 ? ` (${opts2})` : ''}`);
        }
      }
    });
}
