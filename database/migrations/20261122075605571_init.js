// Migration "init", generated from the content-type registry on 2026-11-22T07:56:05.571Z.
// Review it before committing. Changes:
//   + table institute
//   + table fee_type
'use strict';

exports.up = async function up(knex) {
  await knex.schema.createTable("institute", (t) => {
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
    t.string("name", 255).nullable();
    t.string("code", 64).nullable();
    t.string("city", 255).nullable();
    t.unique(["name"], { indexName: "institute_name_unique" });
    t.unique(["code"], { indexName: "institute_code_unique" });
  });
  await knex.schema.createTable("fee_type", (t) => {
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
    t.string("fee_type", 255).nullable();
    t.integer("institute_id").nullable().references('id').inTable("institute").onDelete("RESTRICT");
    t.boolean("part_payment_allowed").nullable().defaultTo(false);
    t.string("late_payment_fees_type", 16).nullable();
    t.decimal("late_payment_fees", 18, 4).nullable();
    t.date("due_date").nullable();
    t.unique(["fee_type","deleted_tracker"], { indexName: "fee_type_fee_type_deleted_tracker_unique" });
    t.index(["institute_id"], "fee_type_institute_id_index");
    t.index(["due_date"], "fee_type_due_date_index");
  });
};

exports.down = async function down(knex) {
  await knex.schema.dropTable("fee_type");
  await knex.schema.dropTable("institute");
};

/** The schema after this migration: the next `migrate:make` diffs the registry against it. */
exports.snapshot = {"version":1,"tables":[{"name":"institute","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"created_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"updated_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"deleted_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"deleted_tracker","spec":{"method":"string","args":[64]},"nullable":false,"default":"not-deleted"},{"name":"published_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"locale_name","spec":{"method":"string","args":[32]},"nullable":true},{"name":"default_entity_locale_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"created_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"updated_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"name","spec":{"method":"string","args":[255]},"nullable":true},{"name":"code","spec":{"method":"string","args":[64]},"nullable":true},{"name":"city","spec":{"method":"string","args":[255]},"nullable":true}],"indexes":[{"name":"institute_name_unique","columns":["name"],"unique":true},{"name":"institute_code_unique","columns":["code"],"unique":true}]},{"name":"fee_type","columns":[{"name":"id","spec":{"method":"increments","args":[]},"nullable":false},{"name":"created_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"updated_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":false},{"name":"deleted_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"deleted_tracker","spec":{"method":"string","args":[64]},"nullable":false,"default":"not-deleted"},{"name":"published_at","spec":{"method":"timestamp","args":[{"useTz":true,"precision":3}]},"nullable":true},{"name":"locale_name","spec":{"method":"string","args":[32]},"nullable":true},{"name":"default_entity_locale_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"created_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"updated_by_id","spec":{"method":"integer","args":[]},"nullable":true},{"name":"fee_type","spec":{"method":"string","args":[255]},"nullable":true},{"name":"institute_id","spec":{"method":"integer","args":[]},"nullable":true,"references":{"table":"institute","column":"id","onDelete":"restrict"}},{"name":"part_payment_allowed","spec":{"method":"boolean","args":[]},"nullable":true,"default":false},{"name":"late_payment_fees_type","spec":{"method":"string","args":[16]},"nullable":true},{"name":"late_payment_fees","spec":{"method":"decimal","args":[18,4]},"nullable":true},{"name":"due_date","spec":{"method":"date","args":[]},"nullable":true}],"indexes":[{"name":"fee_type_fee_type_deleted_tracker_unique","columns":["fee_type","deleted_tracker"],"unique":true},{"name":"fee_type_institute_id_index","columns":["institute_id"],"unique":false},{"name":"fee_type_due_date_index","columns":["due_date"],"unique":false}]}]};
