import type { Command } from 'commander';
import { cliDeps } from '../boot';

export function registerContentTypes(program: Command): void {
  program
    .command('content-types:list')
    .description('list the models of the registry with their fields')
    .option('--json', 'print the registry as JSON')
    .action((opts: { json?: boolean }) => {
      const { registry } = cliDeps();
      if (opts.json) {
        console.log(JSON.stringify(registry.contentTypes.map((c) => ({ ...c, byName: undefined })), null, 2));
        return;
      }
      for (const ct of registry.contentTypes) {
        const flags = [ct.softDelete && 'soft delete', ct.userKey && `user key ${ct.userKey}`, ct.plugin && `plugin ${ct.plugin}`].filter(Boolean).join(', ');
        console.log(`${ct.name}  (table ${ct.table}${flags ? `; ${flags}` : ''})  ${ct.source}`);
        for (const a of ct.attributes) {
          const type = a.kind === 'scalar' ? a.type : a.kind === 'media' ? `media${a.multiple ? '[]' : ''}` : `${a.relation} → ${a.target}`;
          const opts2 = [a.required && 'required', a.kind === 'scalar' && a.unique && 'unique', a.private && 'private'].filter(Boolean).join(' ');
          console.log(`  ${a.name}: ${type}${opts2 ? ` (${opts2})` : ''}`);
        }
      }
    });
}
