// Migration "user-flags-not-null", written by hand on 2026-11-25 (a data fix, no schema change).
// The identity plugin's account flags (`active`, `forcePasswordChange`, `emailVerified`,
// `mobileVerified`) are required booleans now: a write refuses null. Rows written before could hold
// NULL, which every check read as "off" (a NULL `active` signs nobody in) but answers showed as null.
// This stores that reading: NULL becomes false, so answers, filters (`$eq=false`) and checks agree.
// Nothing else changes; a NULL `active` stays inactive.
'use strict';

const TABLE = 'users';
const FLAGS = ['active', 'force_password_change', 'email_verified', 'mobile_verified'];

exports.up = async function up(knex) {
  if (!(await knex.schema.hasTable(TABLE))) return;
  for (const column of FLAGS) {
    if (!(await knex.schema.hasColumn(TABLE, column))) continue;
    await knex(TABLE).whereNull(column).update({ [column]: false });
  }
};

exports.down = async function down() {
  // nothing to undo: NULL and false meant the same
};

/** The schema after this migration (unchanged): the next `migrate:make` diffs the registry against it. */
exports.snapshot = require('./20261125060000000_webhook-delivery-folds.js').snapshot;
