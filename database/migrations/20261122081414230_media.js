// Migration "media", generated from the content-type registry on 2026-11-22T08:14:14.230Z.
// Review it before committing. Changes:
//   + table media_files
'use strict';

exports.up = async function up(knex) {
  await knex.schema.createTable("media_files", (t) => {
    t.increments("id").primary();
    t.string("name", 255).notNullable();
    t.string("mime", 255).notNullable();
    t.bigInteger("size").notNullable();
    t.string("sha256", 64).notNullable();
    t.string("storage_key", 255).notNullable();
    t.string("model", 64).notNullable();
    t.string("field", 64).notNullable();
    t.integer("record_id").notNullable();
    t.timestamp("created_at", {"useTz":true,"precision":3}).notNullable();
    t.unique(["storage_key"], { indexName: "media_files_storage_key_unique" });
    t.index(["model","record_id","field"], "media_files_model_record_id_field_index");
  });
};

exports.down = async function down(knex) {
  await knex.schema.dropTable("media_files");
};

/** The schema after this migration: the next `migrate:make` diffs the registry against it. */
exports.snapshot = {"version":1,"tables":[{"name":"institute","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"created_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"updated_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"deleted_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"deleted_tracker","spec":{"method":"string","args":[64]},"nullable":false,"default":"not-deleted"},{"name":"published_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"locale_name","spec":{"method":"string","args":[32]},"nullable":true},{"name":"default_entity_locale_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"created_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"updated_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"name","spec":{"method":"string","args":[255]},"nullable":true},{"name":"code","spec":{"method":"string","args":[64]},"nullable":true},{"name":"city","spec":{"method":"string","args":[255]},"nullable":true}],"indexes":[{"name":"institute_name_unique","columns":["name"],"unique":true},{"name":"institute_code_unique","columns":["code"],"unique":true}]},{"name":"fee_type","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"created_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"updated_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"deleted_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"deleted_tracker","spec":{"method":"string","args":[64]},"nullable":false,"default":"not-deleted"},{"name":"published_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"locale_name","spec":{"method":"string","args":[32]},"nullable":true},{"name":"default_entity_locale_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"created_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"updated_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"fee_type","spec":{"method":"string","args":[255]},"nullable":true},{"name":"institute_id","spec":{"method":"integer","args":[]},"nullable":true,"references":{"table":"institute","column":"id","onDelete":"restrict"}},{"name":"part_payment_allowed","spec":{"method":"boolean","args":[]},"nullable":true,"default":false},{"name":"late_payment_fees_type","spec":{"method":"string","args":[16]},"nullable":true},{"name":"late_payment_fees","spec":{"method":"decimal","args":[18,4]},"nullable":true},{"name":"due_date","spec":{"method":"date","args":[]},"nullable":true}],"indexes":[{"name":"fee_type_fee_type_deleted_tracker_unique","columns":["fee_type","deleted_tracker"],"unique":true},{"name":"fee_type_institute_id_index","columns":["institute_id"],"unique":false},{"name":"fee_type_due_date_index","columns":["due_date"],"unique":false}]},{"name":"media_files","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"name","spec":{"method":"string","args":[255]},"nullable":false},{"name":"mime","spec":{"method":"string","args":[255]},"nullable":false},{"name":"size","spec":{"method":"bigInteger","args":[]},"nullable":false},{"name":"sha256","spec":{"method":"string","args":[64]},"nullable":false},{"name":"storage_key","spec":{"method":"string","args":[255]},"nullable":false},{"name":"model","spec":{"method":"string","args":[64]},"nullable":false},{"name":"field","spec":{"method":"string","args":[64]},"nullable":false},{"name":"record_id","spec":{"method":"integer","args":[]},"nullable":false},{"name":"created_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false}],"indexes":[{"name":"media_files_storage_key_unique","columns":["storage_key"],"unique":true},{"name":"media_files_model_record_id_field_index","columns":["model","record_id","field"],"unique":false}]}]};
