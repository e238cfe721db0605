/**
 * Case-insensitive matching (`$eqi $nei $containsi $notContainsi $startsWithi $endsWithi`) that both
 * databases answer alike for every script. SQLite's lower() and LIKE fold ASCII only, PostgreSQL's
 * fold by locale; neither can call a JS function (node-sqlite3 has no user-defined functions). So the
 * service folds in JS: every filterable text attribute has a hidden shadow column `<column>__fold`
 * holding foldText(value), written with the value on every write (withFolds), and the `…i` operators
 * compare that column case-sensitively with the folded needle (check.ts). Same stored bytes, same
 * needle, plain comparisons: the databases agree by construction.
 */
import { createHash } from 'node:crypto';
import { ATTRIBUTE_KINDS } from './attribute-kinds';
import type { Attribute, ContentType, ScalarAttribute } from './types';

/**
 * The fold: NFC, then upper- and lower-case (Unicode default, not locale-tailored; full mappings, so
 * `ß` ≡ `ss` ≡ `SS` and `ﬁ` ≡ `fi`), final sigma as sigma (`ς` ≡ `σ` ≡ `Σ`, so a substring search
 * does not depend on where the word ends), NFC again. It is written without outside names because
 * generated migrations embed its source (to-migration.ts) to backfill existing rows.
 */
export function foldText(s: string): string {
  // ASCII (most values): lower case is the whole fold.
  if (/^[\x00-\x7f]*$/.test(s)) return s.toLowerCase();
  return s.normalize('NFC').toUpperCase().toLowerCase().replace(/\u03c2/g, '\u03c3').normalize('NFC');
}

const FOLD_SUFFIX = '__fold';
/** PostgreSQL truncates identifiers past 63 bytes. */
const MAX_IDENTIFIER = 63;

/**
 * `<column>__fold`. Attribute columns are snake_case of camelCase names and never hold `__`, so the
 * name cannot clash with a column of its own; a long one is cut and keeps a hash to stay distinct.
 */
export function foldColumnName(column: string): string {
  const name = `${column}${FOLD_SUFFIX}`;
  if (name.length <= MAX_IDENTIFIER) return name;
  const hash = createHash('sha1').update(column).digest('hex').slice(0, 8);
  return `${column.slice(0, MAX_IDENTIFIER - FOLD_SUFFIX.length - 9)}_${hash}${FOLD_SUFFIX}`;
}

/** Attributes the `…i` operators can reach: public text scalars of models with REST routes. */
export function isFolded(model: ContentType, a: Attribute): a is ScalarAttribute {
  return model.api && a.kind === 'scalar' && !a.private && ATTRIBUTE_KINDS[a.type].valueClass === 'text';
}

/**
 * Adds the shadow values to a row keyed by column (INSERT or UPDATE): for every folded attribute whose
 * column the row sets, its fold (NULL for NULL). Every writer of a model's rows calls it.
 */
export function withFolds<R extends Record<string, unknown>>(model: ContentType, row: R): R {
  const out: Record<string, unknown> = row;
  for (const a of model.attributes) {
    if (!(a.kind === 'scalar' && a.column in row) || !isFolded(model, a)) continue;
    const v = row[a.column];
    out[foldColumnName(a.column)] = typeof v === 'string' ? foldText(v) : null;
  }
  return row;
}
