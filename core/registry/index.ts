import { buildRegistry } from './build';
import { loadDocuments, type ModelSource } from './load';
import type { Registry } from './types';

export { RegistryError } from './registry-error';
export type { ModelSource } from './load';

/** Reads the YAML models of every source folder and builds the registry (throws RegistryError). */
export function loadRegistry(sources: readonly ModelSource[], rootDir: string): Registry {
  return buildRegistry(loadDocuments(sources, rootDir));
}
