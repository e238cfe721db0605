/** Plugin fragments → the document: paths, components and tags added; a clash stops the build with a message naming both. */
import { isDeepStrictEqual } from 'node:util';
import type { OpenApiFragment } from '../plugin-api';
import type { OpenApiComponents, OpenApiDocument } from './types';

export class OpenApiMergeError extends Error {}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface NamedFragment {
  /** The plugin's name (the default tag of its operations). */
  readonly plugin: string;
  readonly fragment: OpenApiFragment;
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

/** Adds one fragment to `doc` (mutates `doc`, which the caller owns). */
export function mergeFragment(doc: OpenApiDocument, { plugin, fragment }: NamedFragment): void {
  for (const tag of fragment.tags ?? []) {
    if (!doc.tags.some((t) => t.name === tag.name)) doc.tags.push({ ...tag });
  }
  for (const [path, rawItem] of Object.entries(fragment.paths)) {
    const item = clone(rawItem) as Record<string, unknown>;
    const existing = doc.paths[path] ?? {};
    for (const method of METHODS) {
      const op = item[method] as Record<string, unknown> | undefined;
      if (!op) continue;
      if (existing[method]) throw new OpenApiMergeError(`plugin ${plugin}: ${method.toUpperCase()} ${path} is already in the document`);
      if (!Array.isArray(op.tags) || op.tags.length === 0) {
        op.tags = [plugin];
        if (!doc.tags.some((t) => t.name === plugin)) doc.tags.push({ name: plugin, description: `Routes of the ${plugin} plugin.` });
      }
    }
    doc.paths[path] = { ...existing, ...item };
  }
  const sections = fragment.components ?? {};
  for (const [section, entries] of Object.entries(sections) as [keyof OpenApiComponents, Record<string, unknown> | undefined][]) {
    const target = doc.components[section];
    if (!target) throw new OpenApiMergeError(`plugin ${plugin}: components.${String(section)} is not a section a plugin may add to`);
    for (const [name, value] of Object.entries(entries ?? {})) {
      if (name in target && !isDeepStrictEqual(target[name], value)) {
        throw new OpenApiMergeError(`plugin ${plugin}: components.${section}.${name} clashes with an existing component of that name`);
      }
      target[name] = clone(value) as never;
    }
  }
}
