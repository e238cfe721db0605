// Migration "case_fold", generated from the content-type registry on 2026-11-24T10:44:21.729Z.
// Review it before committing. Changes:
//   + column institute.name__fold
//   + column institute.code__fold
//   + column institute.city__fold
//   + column fee_type.fee_type__fold
//   + column fee_type.late_payment_fees_type__fold
//   + column users.full_name__fold
//   + column users.username__fold
//   + column users.email__fold
//   + column users.mobile__fold
//   + column users.last_login_provider__fold
//   + column permissions.action__fold
//   + column roles.name__fold
//   + column roles.description__fold
'use strict';

exports.up = async function up(knex) {
  await knex.schema.alterTable("institute", (t) => {
    t.text("name__fold").nullable();
  });
  await knex.schema.alterTable("institute", (t) => {
    t.text("code__fold").nullable();
  });
  await knex.schema.alterTable("institute", (t) => {
    t.text("city__fold").nullable();
  });
  await knex.schema.alterTable("fee_type", (t) => {
    t.text("fee_type__fold").nullable();
  });
  await knex.schema.alterTable("fee_type", (t) => {
    t.text("late_payment_fees_type__fold").nullable();
  });
  await knex.schema.alterTable("users", (t) => {
    t.text("full_name__fold").nullable();
  });
  await knex.schema.alterTable("users", (t) => {
    t.text("username__fold").nullable();
  });
  await knex.schema.alterTable("users", (t) => {
    t.text("email__fold").nullable();
  });
  await knex.schema.alterTable("users", (t) => {
    t.text("mobile__fold").nullable();
  });
  await knex.schema.alterTable("users", (t) => {
    t.text("last_login_provider__fold").nullable();
  });
  await knex.schema.alterTable("permissions", (t) => {
    t.text("action__fold").nullable();
  });
  await knex.schema.alterTable("roles", (t) => {
    t.text("name__fold").nullable();
  });
  await knex.schema.alterTable("roles", (t) => {
    t.text("description__fold").nullable();
  });
  await backfillFolds(knex, "institute", [["name","name__fold"],["code","code__fold"],["city","city__fold"]]);
  await backfillFolds(knex, "fee_type", [["fee_type","fee_type__fold"],["late_payment_fees_type","late_payment_fees_type__fold"]]);
  await backfillFolds(knex, "users", [["full_name","full_name__fold"],["username","username__fold"],["email","email__fold"],["mobile","mobile__fold"],["last_login_provider","last_login_provider__fold"]]);
  await backfillFolds(knex, "permissions", [["action","action__fold"]]);
  await backfillFolds(knex, "roles", [["name","name__fold"],["description","description__fold"]]);
};

exports.down = async function down(knex) {
  await knex.schema.alterTable("roles", (t) => {
    t.dropColumn("description__fold");
  });
  await knex.schema.alterTable("roles", (t) => {
    t.dropColumn("name__fold");
  });
  await knex.schema.alterTable("permissions", (t) => {
    t.dropColumn("action__fold");
  });
  await knex.schema.alterTable("users", (t) => {
    t.dropColumn("last_login_provider__fold");
  });
  await knex.schema.alterTable("users", (t) => {
    t.dropColumn("mobile__fold");
  });
  await knex.schema.alterTable("users", (t) => {
    t.dropColumn("email__fold");
  });
  await knex.schema.alterTable("users", (t) => {
    t.dropColumn("username__fold");
  });
  await knex.schema.alterTable("users", (t) => {
    t.dropColumn("full_name__fold");
  });
  await knex.schema.alterTable("fee_type", (t) => {
    t.dropColumn("late_payment_fees_type__fold");
  });
  await knex.schema.alterTable("fee_type", (t) => {
    t.dropColumn("fee_type__fold");
  });
  await knex.schema.alterTable("institute", (t) => {
    t.dropColumn("city__fold");
  });
  await knex.schema.alterTable("institute", (t) => {
    t.dropColumn("code__fold");
  });
  await knex.schema.alterTable("institute", (t) => {
    t.dropColumn("name__fold");
  });
};

/** The schema after this migration: the next `migrate:make` diffs the registry against it. */
exports.snapshot = {"version":1,"tables":[{"name":"institute","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"created_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"updated_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"deleted_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"deleted_tracker","spec":{"method":"string","args":[64]},"nullable":false,"default":"not-deleted"},{"name":"published_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"locale_name","spec":{"method":"string","args":[32]},"nullable":true},{"name":"default_entity_locale_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"created_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"updated_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"name","spec":{"method":"string","args":[255]},"nullable":true},{"name":"name__fold","spec":{"method":"text","args":[]},"nullable":true,"foldOf":"name"},{"name":"code","spec":{"method":"string","args":[64]},"nullable":true},{"name":"code__fold","spec":{"method":"text","args":[]},"nullable":true,"foldOf":"code"},{"name":"city","spec":{"method":"string","args":[255]},"nullable":true},{"name":"city__fold","spec":{"method":"text","args":[]},"nullable":true,"foldOf":"city"}],"indexes":[{"name":"institute_name_unique","columns":["name"],"unique":true},{"name":"institute_code_unique","columns":["code"],"unique":true}]},{"name":"fee_type","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"created_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"updated_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"deleted_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"deleted_tracker","spec":{"method":"string","args":[64]},"nullable":false,"default":"not-deleted"},{"name":"published_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"locale_name","spec":{"method":"string","args":[32]},"nullable":true},{"name":"default_entity_locale_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"created_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"updated_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"fee_type","spec":{"method":"string","args":[255]},"nullable":true},{"name":"fee_type__fold","spec":{"method":"text","args":[]},"nullable":true,"foldOf":"fee_type"},{"name":"institute_id","spec":{"method":"integer","args":[]},"nullable":true,"references":{"table":"institute","column":"id","onDelete":"restrict"}},{"name":"part_payment_allowed","spec":{"method":"boolean","args":[]},"nullable":true,"default":false},{"name":"late_payment_fees_type","spec":{"method":"string","args":[16]},"nullable":true},{"name":"late_payment_fees_type__fold","spec":{"method":"text","args":[]},"nullable":true,"foldOf":"late_payment_fees_type"},{"name":"late_payment_fees","spec":{"method":"decimal","args":[18,4]},"nullable":true},{"name":"due_date","spec":{"method":"date","args":[]},"nullable":true}],"indexes":[{"name":"fee_type_fee_type_deleted_tracker_unique","columns":["fee_type","deleted_tracker"],"unique":true},{"name":"fee_type_institute_id_index","columns":["institute_id"],"unique":false},{"name":"fee_type_due_date_index","columns":["due_date"],"unique":false}]},{"name":"users","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"created_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"updated_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"deleted_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"deleted_tracker","spec":{"method":"string","args":[64]},"nullable":false,"default":"not-deleted"},{"name":"published_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"locale_name","spec":{"method":"string","args":[32]},"nullable":true},{"name":"default_entity_locale_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"created_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"updated_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"full_name","spec":{"method":"string","args":[255]},"nullable":true},{"name":"full_name__fold","spec":{"method":"text","args":[]},"nullable":true,"foldOf":"full_name"},{"name":"username","spec":{"method":"string","args":[255]},"nullable":true},{"name":"username__fold","spec":{"method":"text","args":[]},"nullable":true,"foldOf":"username"},{"name":"email","spec":{"method":"string","args":[255]},"nullable":true},{"name":"email__fold","spec":{"method":"text","args":[]},"nullable":true,"foldOf":"email"},{"name":"mobile","spec":{"method":"string","args":[32]},"nullable":true},{"name":"mobile__fold","spec":{"method":"text","args":[]},"nullable":true,"foldOf":"mobile"},{"name":"password","spec":{"method":"string","args":[255]},"nullable":true},{"name":"active","spec":{"method":"boolean","args":[]},"nullable":true,"default":true},{"name":"force_password_change","spec":{"method":"boolean","args":[]},"nullable":true,"default":false},{"name":"last_login_provider","spec":{"method":"string","args":[32]},"nullable":true},{"name":"last_login_provider__fold","spec":{"method":"text","args":[]},"nullable":true,"foldOf":"last_login_provider"},{"name":"email_verified","spec":{"method":"boolean","args":[]},"nullable":true,"default":false},{"name":"mobile_verified","spec":{"method":"boolean","args":[]},"nullable":true,"default":false},{"name":"username_key","spec":{"method":"string","args":[255]},"nullable":true},{"name":"email_key","spec":{"method":"string","args":[255]},"nullable":true},{"name":"mobile_key","spec":{"method":"string","args":[32]},"nullable":true},{"name":"pending_verification","spec":{"method":"string","args":[64]},"nullable":true}],"indexes":[{"name":"users_username_unique","columns":["username"],"unique":true},{"name":"users_email_unique","columns":["email"],"unique":true},{"name":"users_username_key_unique","columns":["username_key"],"unique":true},{"name":"users_email_key_unique","columns":["email_key"],"unique":true},{"name":"users_mobile_key_unique","columns":["mobile_key"],"unique":true}]},{"name":"one_time_codes","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"created_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"updated_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"deleted_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"deleted_tracker","spec":{"method":"string","args":[64]},"nullable":false,"default":"not-deleted"},{"name":"published_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"locale_name","spec":{"method":"string","args":[32]},"nullable":true},{"name":"default_entity_locale_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"created_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"updated_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"user_id","spec":{"method":"integer","args":[]},"nullable":true,"references":{"table":"users","column":"id","onDelete":"cascade"}},{"name":"purpose","spec":{"method":"string","args":[16]},"nullable":true},{"name":"channel","spec":{"method":"string","args":[16]},"nullable":true},{"name":"batch","spec":{"method":"string","args":[64]},"nullable":true},{"name":"code_hash","spec":{"method":"string","args":[64]},"nullable":true},{"name":"attempts","spec":{"method":"integer","args":[]},"nullable":true,"default":0},{"name":"expires_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"used_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true}],"indexes":[{"name":"one_time_codes_user_id_index","columns":["user_id"],"unique":false},{"name":"one_time_codes_batch_index","columns":["batch"],"unique":false},{"name":"one_time_codes_code_hash_index","columns":["code_hash"],"unique":false}]},{"name":"permissions","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"created_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"updated_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"deleted_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"deleted_tracker","spec":{"method":"string","args":[64]},"nullable":false,"default":"not-deleted"},{"name":"published_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"locale_name","spec":{"method":"string","args":[32]},"nullable":true},{"name":"default_entity_locale_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"created_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"updated_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"action","spec":{"method":"string","args":[128]},"nullable":true},{"name":"action__fold","spec":{"method":"text","args":[]},"nullable":true,"foldOf":"action"}],"indexes":[{"name":"permissions_action_unique","columns":["action"],"unique":true}]},{"name":"sessions","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"created_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"updated_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"deleted_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"deleted_tracker","spec":{"method":"string","args":[64]},"nullable":false,"default":"not-deleted"},{"name":"published_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"locale_name","spec":{"method":"string","args":[32]},"nullable":true},{"name":"default_entity_locale_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"created_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"updated_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"user_id","spec":{"method":"integer","args":[]},"nullable":true,"references":{"table":"users","column":"id","onDelete":"cascade"}},{"name":"provider","spec":{"method":"string","args":[32]},"nullable":true},{"name":"expires_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"revoked_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"revoked_reason","spec":{"method":"string","args":[64]},"nullable":true}],"indexes":[{"name":"sessions_user_id_index","columns":["user_id"],"unique":false},{"name":"sessions_revoked_at_index","columns":["revoked_at"],"unique":false}]},{"name":"refresh_tokens","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"created_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"updated_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"deleted_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"deleted_tracker","spec":{"method":"string","args":[64]},"nullable":false,"default":"not-deleted"},{"name":"published_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"locale_name","spec":{"method":"string","args":[32]},"nullable":true},{"name":"default_entity_locale_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"created_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"updated_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"session_id","spec":{"method":"integer","args":[]},"nullable":true,"references":{"table":"sessions","column":"id","onDelete":"cascade"}},{"name":"token_hash","spec":{"method":"string","args":[64]},"nullable":true},{"name":"expires_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"spent_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true}],"indexes":[{"name":"refresh_tokens_session_id_index","columns":["session_id"],"unique":false},{"name":"refresh_tokens_token_hash_unique","columns":["token_hash"],"unique":true}]},{"name":"roles","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"created_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"updated_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"deleted_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"deleted_tracker","spec":{"method":"string","args":[64]},"nullable":false,"default":"not-deleted"},{"name":"published_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"locale_name","spec":{"method":"string","args":[32]},"nullable":true},{"name":"default_entity_locale_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"created_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"updated_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"name","spec":{"method":"string","args":[64]},"nullable":true},{"name":"name__fold","spec":{"method":"text","args":[]},"nullable":true,"foldOf":"name"},{"name":"description","spec":{"method":"text","args":[]},"nullable":true},{"name":"description__fold","spec":{"method":"text","args":[]},"nullable":true,"foldOf":"description"}],"indexes":[{"name":"roles_name_unique","columns":["name"],"unique":true}]},{"name":"roles_permissions_links","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"roles_id","spec":{"method":"integer","args":[]},"nullable":false,"references":{"table":"roles","column":"id","onDelete":"cascade"}},{"name":"permissions_id","spec":{"method":"integer","args":[]},"nullable":false,"references":{"table":"permissions","column":"id","onDelete":"cascade"}}],"indexes":[{"name":"roles_permissions_links_roles_id_permissions_id_unique","columns":["roles_id","permissions_id"],"unique":true},{"name":"roles_permissions_links_permissions_id_index","columns":["permissions_id"],"unique":false}]},{"name":"users_roles_links","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"users_id","spec":{"method":"integer","args":[]},"nullable":false,"references":{"table":"users","column":"id","onDelete":"cascade"}},{"name":"roles_id","spec":{"method":"integer","args":[]},"nullable":false,"references":{"table":"roles","column":"id","onDelete":"cascade"}}],"indexes":[{"name":"users_roles_links_users_id_roles_id_unique","columns":["users_id","roles_id"],"unique":true},{"name":"users_roles_links_roles_id_index","columns":["roles_id"],"unique":false}]},{"name":"media_files","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"name","spec":{"method":"string","args":[255]},"nullable":false},{"name":"mime","spec":{"method":"string","args":[255]},"nullable":false},{"name":"size","spec":{"method":"bigInteger","args":[]},"nullable":false},{"name":"sha256","spec":{"method":"string","args":[64]},"nullable":false},{"name":"storage_key","spec":{"method":"string","args":[255]},"nullable":false},{"name":"model","spec":{"method":"string","args":[64]},"nullable":false},{"name":"field","spec":{"method":"string","args":[64]},"nullable":false},{"name":"record_id","spec":{"method":"integer","args":[]},"nullable":false},{"name":"created_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false}],"indexes":[{"name":"media_files_storage_key_unique","columns":["storage_key"],"unique":true},{"name":"media_files_model_record_id_field_index","columns":["model","record_id","field"],"unique":false}]}]};

/** Fills new case-fold columns of existing rows with the service's fold, in batches of ids. */
async function backfillFolds(knex, table, pairs) {
  const foldText = function foldText(s) {
    // ASCII (most values): lower case is the whole fold.
    if (/^[\x00-\x7f]*$/.test(s))
        return s.toLowerCase();
    return s.normalize('NFC').toUpperCase().toLowerCase().replace(/\u03c2/g, '\u03c3').normalize('NFC');
};
  let last = 0;
  for (;;) {
    const rows = await knex(table).select(['id', ...pairs.map(([c]) => c)]).where('id', '>', last).orderBy('id').limit(300);
    if (rows.length === 0) return;
    for (const [column, fold] of pairs) {
      const set = rows.filter((r) => typeof r[column] === 'string');
      if (set.length === 0) continue;
      const cases = set.map(() => 'WHEN ? THEN ?').join(' ');
      const bindings = set.flatMap((r) => [r.id, foldText(r[column])]);
      await knex(table).whereIn('id', set.map((r) => r.id)).update({ [fold]: knex.raw(`CASE ?? ${cases} END`, ['id', ...bindings]) });
    }
    last = rows[rows.length - 1].id;
  }
}
