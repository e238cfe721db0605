/**
 * The response cache's key of a read (issue 17): the model, the endpoint (Find, FindOne + id, grouped
 * Find), the parsed query in a canonical form and the caller's permission scope. Pure functions.
 *
 * Canonical form: the parsed `ListQuery` (every parameter the parser accepts, so later ones such as
 * `status` / `locale` are covered as soon as they are part of it), without the `at` fields (the raw
 * parameter paths, kept only for error messages) and with the items of `$and` / `$or` in a sorted
 * order (their order cannot change an answer). List order that can change an answer (sort keys,
 * `fields`, `populate`, which orders the keys of the answer) is kept as written.
 */
import { createHash } from 'node:crypto';
import type { ListQuery } from '../query/ast';

function canon(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => k !== 'at' && o[k] !== undefined)
    .sort();
  const parts = keys.map((k) => {
    if (k === 'items' && (o.kind === 'and' || o.kind === 'or') && Array.isArray(o.items)) return `"items":[${o.items.map(canon).sort().join(',')}]`;
    return `${JSON.stringify(k)}:${canon(o[k])}`;
  });
  return `{${parts.join(',')}}`;
}

/** Canonical JSON of any value (object keys sorted, `at` left out): equal texts for equal meanings. */
export function canonicalJson(v: unknown): string {
  return canon(v);
}

/** The canonical text of a parsed query: equal for queries that differ only in parameter order or spelling of the same tree. */
export function canonicalQuery(q: ListQuery): string {
  return canon(q);
}

export type ReadKind = 'find' | 'findOne' | 'grouped';

/** A fixed-length key (SHA-256, base64url) of one read: model, endpoint, id, canonical query, permission scope. */
export function readKey(model: string, kind: ReadKind, id: number | null, q: ListQuery, scope: string, version = ''): string {
  return createHash('sha256')
    .update(`${model}\n${kind}\n${id ?? ''}\n${scope}\n${version}\n${canonicalQuery(q)}`)
    .digest('base64url');
}
