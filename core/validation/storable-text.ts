/**
 * Text both databases store alike. PostgreSQL cannot hold the NUL character (U+0000) in text or
 * jsonb (it answered 22021 / 22P05 with its own words, while SQLite stored it), and an unpaired
 * UTF-16 surrogate is not Unicode text at all (jsonb refuses its escape; text columns would silently
 * get U+FFFD). Both are refused in every string and JSON value, keys and nested values included
 * (issue 13 items 5 and 6).
 */

import { mergedItemFields } from './bulk-fields';

const NUL = 'must not contain the NUL character (\\u0000)';
const SURROGATE = 'must not contain an unpaired UTF-16 surrogate (\\ud800–\\udfff): not Unicode text';
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `s` cannot be stored, or null. */
export function stringProblem(s: string): string | null {
  if (s.includes('\u0000')) return NUL;
  return LONE_SURROGATE.test(s) ? SURROGATE : null;
}

/** The first problem of any string in `value` (object keys too, at any depth), or null. Iterative: no recursion. */
export function textProblem(value: unknown): string | null {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      const p = stringProblem(v);
      if (p) return p;
    } else if (Array.isArray(v)) {
      for (const x of v) stack.push(x); // not push(...v): a 200,000-item array passes the call stack's limit
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, child] of Object.entries(v)) {
        const p = stringProblem(k);
        if (p) return p;
        stack.push(child);
      }
    }
  }
  return null;
}

/** Per top-level field of an object body: `{ field: [problem] }` for each field whose name or value has one. */
export function fieldTextProblems(body: Record<string, unknown>): Record<string, string[]> {
  const fields = new Map<string, string[]>();
  for (const [k, v] of Object.entries(body)) {
    const p = stringProblem(k) ?? textProblem(v);
    if (p) fields.set(k, [p]);
  }
  return Object.fromEntries(fields);
}

/**
 * The problems of a whole JSON body, shaped like the validators' answers: `fields` for an object,
 * `errors: [{ index, fields }]` for an array (bulk calls); null when every string can be stored.
 */
export function bodyTextProblems(body: unknown): { fields: Record<string, string[]>; errors?: { index: number; fields: Record<string, string[]> }[] } | null {
  if (Array.isArray(body)) {
    const errors = body.flatMap((item, index) => {
      if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
        const fields = fieldTextProblems(item as Record<string, unknown>);
        return Object.keys(fields).length > 0 ? [{ index, fields }] : [];
      }
      const p = textProblem(item);
      return p ? [{ index, fields: { _item: [p] } }] : [];
    });
    return errors.length > 0 ? { fields: mergedItemFields(errors), errors } : null;
  }
  if (typeof body === 'object' && body !== null) {
    const fields = fieldTextProblems(body as Record<string, unknown>);
    return Object.keys(fields).length > 0 ? { fields } : null;
  }
  const p = textProblem(body);
  return p ? { fields: { _body: [p] } } : null;
}
