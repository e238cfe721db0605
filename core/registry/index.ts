import { buildRegistry } from './build';
import { loadDocuments, type ModelSource } from './load';
import type { Registry } from './types';

export { RegistryError } from './registry-error';
export type { ModelSource } from './load';

/**
 * Reads the YAML models of every source folder and builds the registry (throws RegistryError).
 * `reserved`: names no model may take (core/api-segments.ts), with what holds them.
 */
export function loadRegistry(sources: readonly ModelSource[], rootDir: string, reserved: ReadonlyMap<string, string> = new Map()): Registry {
  return buildRegistry(loadDocuments(sources, rootDir), reserved);
}
