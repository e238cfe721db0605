/**
 * The rows a publish or unpublish call acts on (issue 14), decided before it acts, and kept within the
 * caller's `<model>.publish` rule (issue 16; README, Who can see what: an action reaches only the rows its
 * rule matches). The permission guards all four endpoints, so unpublish takes the same rule.
 */
import type { Knex } from 'knex';
import type { Dialect } from '../../database/dialects/dialect';
import { NotFoundError } from '../errors/errors';
import type { CheckedFilter } from '../query/checked';
import type { LocaleChoice } from '../records/locales';
import { idsWhere } from '../records/repository';
import type { ContentType } from '../registry/types';
import { publishTargets } from './localized';

/** What one named id of the call acts on: its locale rows, in order, and the row whose record answers. */
export interface PublishTarget {
  readonly named: number;
  readonly rows: readonly number[];
  readonly answer: number;
}

/**
 * The targets of `ids` (each as `locale=` picks its rows). With a rule (null: every row), every row a named
 * id would touch must match it, else 404 naming those ids (`details.missingIds`), as a missing id answers,
 * and nothing is changed: one row outside the rule keeps the whole call (every locale, every id) undone.
 * The matching rows are locked (FOR UPDATE where the dialect has row locks) until the call commits.
 */
export async function publishPlan(trx: Knex.Transaction, dialect: Dialect, model: ContentType, ids: readonly number[], locale: LocaleChoice, unpublish: boolean, rule: CheckedFilter | null): Promise<PublishTarget[]> {
  const plan: PublishTarget[] = [];
  const absent: number[] = [];
  for (const named of ids) {
    try {
      plan.push({ named, ...(await publishTargets(trx, model, named, locale, unpublish)) });
    } catch (e) {
      // Under a rule an entry without that locale answers as one outside the rule: the 404 tells nothing apart.
      if (!rule || !(e instanceof NotFoundError)) throw e;
      absent.push(named);
    }
  }
  if (!rule) return plan;
  const inside = await idsWhere(trx, dialect, model, [...new Set(plan.flatMap((t) => t.rows))], 'active', rule, true);
  const outside = new Set([...absent, ...plan.filter((t) => t.rows.some((r) => !inside.has(r))).map((t) => t.named)]);
  const missing = ids.filter((id) => outside.has(id));
  if (missing.length > 0) throw new NotFoundError(`no ${model.name} with id ${missing.join(', ')}`, { missingIds: missing });
  return plan;
}
