// Migration "webhook-delivery-folds", written by hand on 2026-11-25 (a data fix, no schema change).
// A delivery's claim and each attempt's outcome wrote `status` and `last_error` without their case-fold
// shadow columns, so the `…i` filter operators of /api/webhook-delivery read the values the delivery was
// created with. The service now writes them; this recomputes them for existing rows, in batches of ids.
'use strict';

const TABLE = 'webhook_deliveries';
const BATCH = 300;

exports.up = async function up(knex) {
  if (!(await knex.schema.hasTable(TABLE))) return;
  const foldText = function foldText(s) {
    // ASCII (most values): lower case is the whole fold.
    if (/^[\x00-\x7f]*$/.test(s))
        return s.toLowerCase();
    return s.normalize('NFC').toUpperCase().toLowerCase().replace(/\u03c2/g, '\u03c3').normalize('NFC');
};
  let last = 0;
  for (;;) {
    const rows = await knex(TABLE).select(['id', 'status', 'last_error']).where('id', '>', last).orderBy('id').limit(BATCH);
    if (rows.length === 0) return;
    for (const [column, fold] of [['status', 'status__fold'], ['last_error', 'last_error__fold']]) {
      const cases = rows.map(() => 'WHEN ? THEN ?').join(' ');
      const bindings = rows.flatMap((r) => [r.id, typeof r[column] === 'string' ? foldText(r[column]) : null]);
      await knex(TABLE).whereIn('id', rows.map((r) => r.id)).update({ [fold]: knex.raw(`CASE ?? ${cases} END`, ['id', ...bindings]) });
    }
    last = rows[rows.length - 1].id;
  }
};

exports.down = async function down() {
  // nothing to undo: the folds are derived from the values
};

/** The schema after this migration (unchanged): the next `migrate:make` diffs the registry against it. */
exports.snapshot = require('./20261124170208555_sort-order-indexes.js').snapshot;
