import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { appDocument } from '../../core/openapi/app-document';
import { cliDeps } from '../boot';

/** `openapi:export [file]`: the document /docs/openapi.json serves (stdout when no file is given). */
export function registerOpenApi(program: Command): void {
  program
    .command('openapi:export')
    .argument('[file]', 'where to write the JSON (default: stdout)')
    .description('write the OpenAPI 3.1 document that /docs serves')
    .action((file: string | undefined) => {
      const deps = cliDeps();
      const json = `${JSON.stringify(appDocument(deps.plugins, deps), null, 2)}\n`;
      if (file) {
        try {
          writeFileSync(file, json);
        } catch (e) {
          throw new Error(`cannot write ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
        }
        console.error(`wrote ${file}`);
      } else {
        process.stdout.write(json);
      }
    });
}
