/** Registry tests: YAML texts as the loader's raw documents, and the boot error a set of them gives. */
import { expect } from 'chai';
import { parseDocument } from 'yaml';
import { RegistryError } from '../../core/registry';
import { buildRegistry } from '../../core/registry/build';
import type { RawDocument } from '../../core/registry/load';

/** `{ stem: yaml text }` → the raw documents of `content-types/<stem>.yaml`. */
export function docs(files: Record<string, string>): RawDocument[] {
  return Object.entries(files).map(([stem, text]) => ({ file: `content-types/${stem}.yaml`, stem, plugin: null, data: parseDocument(text).toJS() }));
}

/** The message of the RegistryError these files stop the boot with (fails when they build). */
export function failure(files: Record<string, string>): string {
  try {
    buildRegistry(docs(files));
  } catch (e) {
    expect(e).to.be.instanceOf(RegistryError);
    return (e as Error).message;
  }
  throw new Error('expected a RegistryError');
}
