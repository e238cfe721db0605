// Migration "identity", generated from the content-type registry on 2026-11-22T08:46:21.226Z.
// Review it before committing. Changes:
//   + table users
//   + table one_time_codes
//   + table permissions
//   + table sessions
//   + table refresh_tokens
//   + table roles
//   + table roles_permissions_links
//   + table users_roles_links
'use strict';

exports.up = async function up(knex) {
  await knex.schema.createTable("users", (t) => {
    t.increments("id").primary();
    t.timestamp("created_at", {"useTz":true,"precision":3}).notNullable();
    t.timestamp("updated_at", {"useTz":true,"precision":3}).notNullable();
    t.timestamp("deleted_at", {"useTz":true,"precision":3}).nullable();
    t.string("deleted_tracker", 64).notNullable().defaultTo("not-deleted");
    t.timestamp("published_at", {"useTz":true,"precision":3}).nullable();
    t.string("locale_name", 32).nullable();
    t.integer("default_entity_locale_id").nullable();
    t.integer("created_by_id").nullable();
    t.integer("updated_by_id").nullable();
    t.string("full_name", 255).nullable();
    t.string("username", 255).nullable();
    t.string("email", 255).nullable();
    t.string("mobile", 32).nullable();
    t.string("password", 255).nullable();
    t.boolean("active").nullable().defaultTo(true);
    t.boolean("force_password_change").nullable().defaultTo(false);
    t.string("last_login_provider", 32).nullable();
    t.boolean("email_verified").nullable().defaultTo(false);
    t.boolean("mobile_verified").nullable().defaultTo(false);
    t.string("username_key", 255).nullable();
    t.string("email_key", 255).nullable();
    t.string("mobile_key", 32).nullable();
    t.string("pending_verification", 64).nullable();
    t.unique(["username"], { indexName: "users_username_unique" });
    t.unique(["email"], { indexName: "users_email_unique" });
    t.unique(["username_key"], { indexName: "users_username_key_unique" });
    t.unique(["email_key"], { indexName: "users_email_key_unique" });
    t.unique(["mobile_key"], { indexName: "users_mobile_key_unique" });
  });
  await knex.schema.createTable("one_time_codes", (t) => {
    t.increments("id").primary();
    t.timestamp("created_at", {"useTz":true,"precision":3}).notNullable();
    t.timestamp("updated_at", {"useTz":true,"precision":3}).notNullable();
    t.timestamp("deleted_at", {"useTz":true,"precision":3}).nullable();
    t.string("deleted_tracker", 64).notNullable().defaultTo("not-deleted");
    t.timestamp("published_at", {"useTz":true,"precision":3}).nullable();
    t.string("locale_name", 32).nullable();
    t.integer("default_entity_locale_id").nullable();
    t.integer("created_by_id").nullable();
    t.integer("updated_by_id").nullable();
    t.integer("user_id").nullable().references('id').inTable("users").onDelete("CASCADE");
    t.string("purpose", 16).nullable();
    t.string("channel", 16).nullable();
    t.string("batch", 64).nullable();
    t.string("code_hash", 64).nullable();
    t.integer("attempts").nullable().defaultTo(0);
    t.timestamp("expires_at", {"useTz":true,"precision":3}).nullable();
    t.timestamp("used_at", {"useTz":true,"precision":3}).nullable();
    t.index(["user_id"], "one_time_codes_user_id_index");
    t.index(["batch"], "one_time_codes_batch_index");
    t.index(["code_hash"], "one_time_codes_code_hash_index");
  });
  await knex.schema.createTable("permissions", (t) => {
    t.increments("id").primary();
    t.timestamp("created_at", {"useTz":true,"precision":3}).notNullable();
    t.timestamp("updated_at", {"useTz":true,"precision":3}).notNullable();
    t.timestamp("deleted_at", {"useTz":true,"precision":3}).nullable();
    t.string("deleted_tracker", 64).notNullable().defaultTo("not-deleted");
    t.timestamp("published_at", {"useTz":true,"precision":3}).nullable();
    t.string("locale_name", 32).nullable();
    t.integer("default_entity_locale_id").nullable();
    t.integer("created_by_id").nullable();
    t.integer("updated_by_id").nullable();
    t.string("action", 128).nullable();
    t.unique(["action"], { indexName: "permissions_action_unique" });
  });
  await knex.schema.createTable("sessions", (t) => {
    t.increments("id").primary();
    t.timestamp("created_at", {"useTz":true,"precision":3}).notNullable();
    t.timestamp("updated_at", {"useTz":true,"precision":3}).notNullable();
    t.timestamp("deleted_at", {"useTz":true,"precision":3}).nullable();
    t.string("deleted_tracker", 64).notNullable().defaultTo("not-deleted");
    t.timestamp("published_at", {"useTz":true,"precision":3}).nullable();
    t.string("locale_name", 32).nullable();
    t.integer("default_entity_locale_id").nullable();
    t.integer("created_by_id").nullable();
    t.integer("updated_by_id").nullable();
    t.integer("user_id").nullable().references('id').inTable("users").onDelete("CASCADE");
    t.string("provider", 32).nullable();
    t.timestamp("expires_at", {"useTz":true,"precision":3}).nullable();
    t.timestamp("revoked_at", {"useTz":true,"precision":3}).nullable();
    t.string("revoked_reason", 64).nullable();
    t.index(["user_id"], "sessions_user_id_index");
    t.index(["revoked_at"], "sessions_revoked_at_index");
  });
  await knex.schema.createTable("refresh_tokens", (t) => {
    t.increments("id").primary();
    t.timestamp("created_at", {"useTz":true,"precision":3}).notNullable();
    t.timestamp("updated_at", {"useTz":true,"precision":3}).notNullable();
    t.timestamp("deleted_at", {"useTz":true,"precision":3}).nullable();
    t.string("deleted_tracker", 64).notNullable().defaultTo("not-deleted");
    t.timestamp("published_at", {"useTz":true,"precision":3}).nullable();
    t.string("locale_name", 32).nullable();
    t.integer("default_entity_locale_id").nullable();
    t.integer("created_by_id").nullable();
    t.integer("updated_by_id").nullable();
    t.integer("session_id").nullable().references('id').inTable("sessions").onDelete("CASCADE");
    t.string("token_hash", 64).nullable();
    t.timestamp("expires_at", {"useTz":true,"precision":3}).nullable();
    t.timestamp("spent_at", {"useTz":true,"precision":3}).nullable();
    t.index(["session_id"], "refresh_tokens_session_id_index");
    t.unique(["token_hash"], { indexName: "refresh_tokens_token_hash_unique" });
  });
  await knex.schema.createTable("roles", (t) => {
    t.increments("id").primary();
    t.timestamp("created_at", {"useTz":true,"precision":3}).notNullable();
    t.timestamp("updated_at", {"useTz":true,"precision":3}).notNullable();
    t.timestamp("deleted_at", {"useTz":true,"precision":3}).nullable();
    t.string("deleted_tracker", 64).notNullable().defaultTo("not-deleted");
    t.timestamp("published_at", {"useTz":true,"precision":3}).nullable();
    t.string("locale_name", 32).nullable();
    t.integer("default_entity_locale_id").nullable();
    t.integer("created_by_id").nullable();
    t.integer("updated_by_id").nullable();
    t.string("name", 64).nullable();
    t.text("description").nullable();
    t.unique(["name"], { indexName: "roles_name_unique" });
  });
  await knex.schema.createTable("roles_permissions_links", (t) => {
    t.increments("id").primary();
    t.integer("roles_id").notNullable().references('id').inTable("roles").onDelete("CASCADE");
    t.integer("permissions_id").notNullable().references('id').inTable("permissions").onDelete("CASCADE");
    t.unique(["roles_id","permissions_id"], { indexName: "roles_permissions_links_roles_id_permissions_id_unique" });
    t.index(["permissions_id"], "roles_permissions_links_permissions_id_index");
  });
  await knex.schema.createTable("users_roles_links", (t) => {
    t.increments("id").primary();
    t.integer("users_id").notNullable().references('id').inTable("users").onDelete("CASCADE");
    t.integer("roles_id").notNullable().references('id').inTable("roles").onDelete("CASCADE");
    t.unique(["users_id","roles_id"], { indexName: "users_roles_links_users_id_roles_id_unique" });
    t.index(["roles_id"], "users_roles_links_roles_id_index");
  });
};

exports.down = async function down(knex) {
  await knex.schema.dropTable("users_roles_links");
  await knex.schema.dropTable("roles_permissions_links");
  await knex.schema.dropTable("roles");
  await knex.schema.dropTable("refresh_tokens");
  await knex.schema.dropTable("sessions");
  await knex.schema.dropTable("permissions");
  await knex.schema.dropTable("one_time_codes");
  await knex.schema.dropTable("users");
};

/** The schema after this migration: the next `migrate:make` diffs the registry against it. */
exports.snapshot = {"version":1,"tables":[{"name":"institute","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"created_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"updated_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"deleted_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"deleted_tracker","spec":{"method":"string","args":[64]},"nullable":false,"default":"not-deleted"},{"name":"published_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"locale_name","spec":{"method":"string","args":[32]},"nullable":true},{"name":"default_entity_locale_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"created_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"updated_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"name","spec":{"method":"string","args":[255]},"nullable":true},{"name":"code","spec":{"method":"string","args":[64]},"nullable":true},{"name":"city","spec":{"method":"string","args":[255]},"nullable":true}],"indexes":[{"name":"institute_name_unique","columns":["name"],"unique":true},{"name":"institute_code_unique","columns":["code"],"unique":true}]},{"name":"fee_type","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"created_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"updated_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"deleted_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"deleted_tracker","spec":{"method":"string","args":[64]},"nullable":false,"default":"not-deleted"},{"name":"published_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"locale_name","spec":{"method":"string","args":[32]},"nullable":true},{"name":"default_entity_locale_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"created_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"updated_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"fee_type","spec":{"method":"string","args":[255]},"nullable":true},{"name":"institute_id","spec":{"method":"integer","args":[]},"nullable":true,"references":{"table":"institute","column":"id","onDelete":"restrict"}},{"name":"part_payment_allowed","spec":{"method":"boolean","args":[]},"nullable":true,"default":false},{"name":"late_payment_fees_type","spec":{"method":"string","args":[16]},"nullable":true},{"name":"late_payment_fees","spec":{"method":"decimal","args":[18,4]},"nullable":true},{"name":"due_date","spec":{"method":"date","args":[]},"nullable":true}],"indexes":[{"name":"fee_type_fee_type_deleted_tracker_unique","columns":["fee_type","deleted_tracker"],"unique":true},{"name":"fee_type_institute_id_index","columns":["institute_id"],"unique":false},{"name":"fee_type_due_date_index","columns":["due_date"],"unique":false}]},{"name":"users","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"created_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"updated_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"deleted_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"deleted_tracker","spec":{"method":"string","args":[64]},"nullable":false,"default":"not-deleted"},{"name":"published_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"locale_name","spec":{"method":"string","args":[32]},"nullable":true},{"name":"default_entity_locale_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"created_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"updated_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"full_name","spec":{"method":"string","args":[255]},"nullable":true},{"name":"username","spec":{"method":"string","args":[255]},"nullable":true},{"name":"email","spec":{"method":"string","args":[255]},"nullable":true},{"name":"mobile","spec":{"method":"string","args":[32]},"nullable":true},{"name":"password","spec":{"method":"string","args":[255]},"nullable":true},{"name":"active","spec":{"method":"boolean","args":[]},"nullable":true,"default":true},{"name":"force_password_change","spec":{"method":"boolean","args":[]},"nullable":true,"default":false},{"name":"last_login_provider","spec":{"method":"string","args":[32]},"nullable":true},{"name":"email_verified","spec":{"method":"boolean","args":[]},"nullable":true,"default":false},{"name":"mobile_verified","spec":{"method":"boolean","args":[]},"nullable":true,"default":false},{"name":"username_key","spec":{"method":"string","args":[255]},"nullable":true},{"name":"email_key","spec":{"method":"string","args":[255]},"nullable":true},{"name":"mobile_key","spec":{"method":"string","args":[32]},"nullable":true},{"name":"pending_verification","spec":{"method":"string","args":[64]},"nullable":true}],"indexes":[{"name":"users_username_unique","columns":["username"],"unique":true},{"name":"users_email_unique","columns":["email"],"unique":true},{"name":"users_username_key_unique","columns":["username_key"],"unique":true},{"name":"users_email_key_unique","columns":["email_key"],"unique":true},{"name":"users_mobile_key_unique","columns":["mobile_key"],"unique":true}]},{"name":"one_time_codes","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"created_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"updated_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"deleted_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"deleted_tracker","spec":{"method":"string","args":[64]},"nullable":false,"default":"not-deleted"},{"name":"published_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"locale_name","spec":{"method":"string","args":[32]},"nullable":true},{"name":"default_entity_locale_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"created_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"updated_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"user_id","spec":{"method":"integer","args":[]},"nullable":true,"references":{"table":"users","column":"id","onDelete":"cascade"}},{"name":"purpose","spec":{"method":"string","args":[16]},"nullable":true},{"name":"channel","spec":{"method":"string","args":[16]},"nullable":true},{"name":"batch","spec":{"method":"string","args":[64]},"nullable":true},{"name":"code_hash","spec":{"method":"string","args":[64]},"nullable":true},{"name":"attempts","spec":{"method":"integer","args":[]},"nullable":true,"default":0},{"name":"expires_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"used_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true}],"indexes":[{"name":"one_time_codes_user_id_index","columns":["user_id"],"unique":false},{"name":"one_time_codes_batch_index","columns":["batch"],"unique":false},{"name":"one_time_codes_code_hash_index","columns":["code_hash"],"unique":false}]},{"name":"permissions","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"created_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"updated_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"deleted_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"deleted_tracker","spec":{"method":"string","args":[64]},"nullable":false,"default":"not-deleted"},{"name":"published_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"locale_name","spec":{"method":"string","args":[32]},"nullable":true},{"name":"default_entity_locale_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"created_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"updated_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"action","spec":{"method":"string","args":[128]},"nullable":true}],"indexes":[{"name":"permissions_action_unique","columns":["action"],"unique":true}]},{"name":"sessions","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"created_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"updated_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"deleted_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"deleted_tracker","spec":{"method":"string","args":[64]},"nullable":false,"default":"not-deleted"},{"name":"published_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"locale_name","spec":{"method":"string","args":[32]},"nullable":true},{"name":"default_entity_locale_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"created_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"updated_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"user_id","spec":{"method":"integer","args":[]},"nullable":true,"references":{"table":"users","column":"id","onDelete":"cascade"}},{"name":"provider","spec":{"method":"string","args":[32]},"nullable":true},{"name":"expires_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"revoked_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"revoked_reason","spec":{"method":"string","args":[64]},"nullable":true}],"indexes":[{"name":"sessions_user_id_index","columns":["user_id"],"unique":false},{"name":"sessions_revoked_at_index","columns":["revoked_at"],"unique":false}]},{"name":"refresh_tokens","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"created_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"updated_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"deleted_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"deleted_tracker","spec":{"method":"string","args":[64]},"nullable":false,"default":"not-deleted"},{"name":"published_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"locale_name","spec":{"method":"string","args":[32]},"nullable":true},{"name":"default_entity_locale_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"created_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"updated_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"session_id","spec":{"method":"integer","args":[]},"nullable":true,"references":{"table":"sessions","column":"id","onDelete":"cascade"}},{"name":"token_hash","spec":{"method":"string","args":[64]},"nullable":true},{"name":"expires_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"spent_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true}],"indexes":[{"name":"refresh_tokens_session_id_index","columns":["session_id"],"unique":false},{"name":"refresh_tokens_token_hash_unique","columns":["token_hash"],"unique":true}]},{"name":"roles","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"created_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"updated_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"deleted_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"deleted_tracker","spec":{"method":"string","args":[64]},"nullable":false,"default":"not-deleted"},{"name":"published_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"locale_name","spec":{"method":"string","args":[32]},"nullable":true},{"name":"default_entity_locale_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"created_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"updated_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"name","spec":{"method":"string","args":[64]},"nullable":true},{"name":"description","spec":{"method":"text","args":[]},"nullable":true}],"indexes":[{"name":"roles_name_unique","columns":["name"],"unique":true}]},{"name":"roles_permissions_links","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"roles_id","spec":{"method":"integer","args":[]},"nullable":false,"references":{"table":"roles","column":"id","onDelete":"cascade"}},{"name":"permissions_id","spec":{"method":"integer","args":[]},"nullable":false,"references":{"table":"permissions","column":"id","onDelete":"cascade"}}],"indexes":[{"name":"roles_permissions_links_roles_id_permissions_id_unique","columns":["roles_id","permissions_id"],"unique":true},{"name":"roles_permissions_links_permissions_id_index","columns":["permissions_id"],"unique":false}]},{"name":"users_roles_links","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"users_id","spec":{"method":"integer","args":[]},"nullable":false,"references":{"table":"users","column":"id","onDelete":"cascade"}},{"name":"roles_id","spec":{"method":"integer","args":[]},"nullable":false,"references":{"table":"roles","column":"id","onDelete":"cascade"}}],"indexes":[{"name":"users_roles_links_users_id_roles_id_unique","columns":["users_id","roles_id"],"unique":true},{"name":"users_roles_links_roles_id_index","columns":["roles_id"],"unique":false}]},{"name":"media_files","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"name","spec":{"method":"string","args":[255]},"nullable":false},{"name":"mime","spec":{"method":"string","args":[255]},"nullable":false},{"name":"size","spec":{"method":"bigInteger","args":[]},"nullable":false},{"name":"sha256","spec":{"method":"string","args":[64]},"nullable":false},{"name":"storage_key","spec":{"method":"string","args":[255]},"nullable":false},{"name":"model","spec":{"method":"string","args":[64]},"nullable":false},{"name":"field","spec":{"method":"string","args":[64]},"nullable":false},{"name":"record_id","spec":{"method":"integer","args":[]},"nullable":false},{"name":"created_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false}],"indexes":[{"name":"media_files_storage_key_unique","columns":["storage_key"],"unique":true},{"name":"media_files_model_record_id_field_index","columns":["model","record_id","field"],"unique":false}]}]};
