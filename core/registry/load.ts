import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { basename, extname, join, relative } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { RegistryError } from './registry-error';

export interface RawDocument {
  /** Path shown in messages (relative to the root when possible). */
  readonly file: string;
  /** File name without extension: the default model name. */
  readonly stem: string;
  readonly plugin: string | null;
  readonly data: unknown;
}

export interface ModelSource {
  readonly dir: string;
  readonly plugin: string | null;
}

/** Reads every `*.yaml` / `*.yml` file of the given folders, in name order. */
export function loadDocuments(sources: readonly ModelSource[], rootDir: string): RawDocument[] {
  const docs: RawDocument[] = [];
  for (const { dir, plugin } of sources) {
    if (!existsSync(dir)) continue;
    const files = readdirSync(dir).filter((f) => ['.yaml', '.yml'].includes(extname(f))).sort();
    for (const f of files) {
      const full = join(dir, f);
      const shown = relative(rootDir, full).startsWith('..') ? full : relative(rootDir, full);
      // prettyErrors would append a code excerpt to the message; the line counter gives the position alone.
      const lines = new LineCounter();
      const doc = parseDocument(readFileSync(full, 'utf8'), { prettyErrors: false, lineCounter: lines });
      const first = doc.errors[0];
      if (first) {
        const { line, col } = lines.linePos(first.pos[0]);
        throw new RegistryError(`${shown}: line ${line}, column ${col}: ${first.message.split('\n')[0]}`);
      }
      docs.push({ file: shown, stem: basename(f, extname(f)), plugin, data: doc.toJS() });
    }
  }
  return docs;
}
