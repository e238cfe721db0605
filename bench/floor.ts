/**
 * The floor: a minimal Koa + knex server, hand-written with the ideal SQL for each request of the
 * benchmark (the lists of bench/shapes.ts, findOne and create, alone or with its outbox row), answering the same JSON as the service.
 * Same driver as the service (knex with sqlite3, pg or mysql2), no authentication, no logging. Run as a child
 * process by bench/run.ts: `node dist/bench/floor.js` with DATABASE_URL, DATABASE_SCHEMA, PORT.
 */
import Koa from 'koa';
import { koaBody } from 'koa-body';
import { loadConfig } from '../config';
import type { Knex } from 'knex';
import { connect } from '../database/connect';
import { EVENTS_TABLE } from '../core/events/table';
import { foldText } from '../core/registry/fold';
import { CONTAINSI_PATH, DEEP_PAGE_PATH, DEEP_PATH, GROUP_RECORDS_PATH, LIST_PATH, M2M_PATH, OUTBOX_HEADER, RELATION_PATH, SORT_PATH } from './shapes';

const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
const { db, dialect } = connect(config.database);

const FEE_COLS = ['id', 'created_at', 'updated_at', 'deleted_at', 'deleted_tracker', 'published_at', 'locale_name', 'default_entity_locale_id', 'created_by_id', 'updated_by_id', 'fee_type', 'institute_id', 'part_payment_allowed', 'late_payment_fees_type', 'late_payment_fees', 'due_date'];
const ROLE_COLS = ['id', 'created_at', 'updated_at', 'deleted_at', 'deleted_tracker', 'published_at', 'locale_name', 'default_entity_locale_id', 'created_by_id', 'updated_by_id', 'name', 'description'];
const PERM_COLS = ['id', 'created_at', 'updated_at', 'deleted_at', 'deleted_tracker', 'published_at', 'locale_name', 'default_entity_locale_id', 'created_by_id', 'updated_by_id', 'action'];
const INST_COLS = ['id', 'created_at', 'updated_at', 'deleted_at', 'deleted_tracker', 'published_at', 'locale_name', 'default_entity_locale_id', 'created_by_id', 'updated_by_id', 'name', 'code', 'city'];

type Row = Record<string, unknown>;
type Query = ReturnType<typeof db>;
const iso = (v: unknown): unknown => (v instanceof Date ? v.toISOString() : v);
const num = (v: unknown): unknown => (typeof v === 'string' ? Number(v) : v);
/** Rows of a `db.raw` SELECT (an array on SQLite, `{ rows }` on PostgreSQL, `[rows, fields]` on MySQL). */
const rawRows = (r: unknown): Row[] => dialect.rawRows(r);
const ACTIVE = 'not-deleted';

function common(r: Row): Row {
  return {
    id: r.id, createdAt: iso(r.created_at), updatedAt: iso(r.updated_at), deletedAt: iso(r.deleted_at), deletedTracker: r.deleted_tracker === 'not-deleted' ? 'not-deleted' : 'deleted',
    publishedAt: iso(r.published_at), localeName: r.locale_name, defaultEntityLocaleId: r.default_entity_locale_id, createdById: r.created_by_id, updatedById: r.updated_by_id,
  };
}
const institute = (r: Row): Row => ({ ...common(r), name: r.name, code: r.code, city: r.city });
const feeTypeOnly = (r: Row): Row => ({
  ...common(r), feeType: r.fee_type, instituteId: r.institute_id, partPaymentAllowed: r.part_payment_allowed === null ? null : Boolean(r.part_payment_allowed),
  latePaymentFeesType: r.late_payment_fees_type, latePaymentFees: num(r.late_payment_fees), dueDate: r.due_date instanceof Date ? r.due_date.toISOString().slice(0, 10) : r.due_date,
});
const feeType = (r: Row, inst: Row | undefined): Row => ({ ...feeTypeOnly(r), institute: inst ? institute(inst) : null });

async function institutesById(ids: readonly unknown[]): Promise<Map<unknown, Row>> {
  const unique = [...new Set(ids.filter((v) => v !== null))];
  const insts: Row[] = unique.length ? await db('institute').select(INST_COLS).whereIn('id', unique as number[]).andWhere('deleted_tracker', ACTIVE) : [];
  return new Map(insts.map((i) => [i.id, i]));
}

async function withInstitutes(rows: Row[]): Promise<Row[]> {
  const byId = await institutesById(rows.map((r) => r.institute_id));
  return rows.map((r) => feeType(r, byId.get(r.institute_id)));
}

/** One ORDER BY key of a floor query (knex's orderBy objects). */
type Order = { column: string; order: 'asc' | 'desc'; nulls?: 'first' | 'last' };

/**
 * Newest due date first, NULLs last (the service's order: NULL is the smallest value), spelled out on
 * PostgreSQL, whose DESC puts NULLs first: its index on due_date keeps NULLs first (see
 * database/schema/types.ts IndexDef.nullsFirst), so this is the order it reads without sorting.
 * SQLite and MariaDB order NULLs so by themselves.
 */
const BY_DUE_DATE_DESC: Order[] = [
  { column: 'due_date', order: 'desc', ...(dialect.name === 'postgres' && { nulls: 'last' as const }) },
  { column: 'id', order: 'desc' },
];

const meta = (total: number, limit: number, offset = 0): Row => ({ totalRecords: total, currentPage: Math.floor(offset / limit) + 1, totalPages: Math.ceil(total / limit) });

/** A page of fee types and the exact total, the two statements run together. */
/**
 * A page and its total in one statement, as the service asks them (core/records/repository.ts): the
 * count is an uncorrelated scalar subquery, evaluated once; a page past the end asks it on its own.
 */
async function pageWithTotal(table: string, columns: readonly string[], where: (qb: Query) => Query, order: Order[], limit: number, offset = 0): Promise<{ rows: Row[]; total: number }> {
  const count = (): Query => where(db(table).count({ count: '*' }));
  const rows = (await where(db(table).select(columns)).select(count().as('total')).orderBy(order).limit(limit).offset(offset)) as Row[];
  if (rows.length > 0) return { rows, total: Number(rows[0].total) };
  const [none] = (await count()) as Row[];
  return { rows, total: Number(none.count) };
}

const feePage = (where: (qb: Query) => Query, order: Order[], limit: number, offset = 0): Promise<{ rows: Row[]; total: number }> => pageWithTotal('fee_type', FEE_COLS, where, order, limit, offset);

/** `n` children per parent in one statement: ROW_NUMBER() OVER (PARTITION BY parent ORDER BY id). */
async function firstPerParent(sql: string, bindings: readonly unknown[]): Promise<Row[]> {
  return rawRows(await db.raw(sql, bindings as Knex.RawBinding[]));
}

const LISTS: Record<string, (q: URLSearchParams) => Promise<Row>> = {
  [LIST_PATH]: async (q) => {
    const type = q.get('filters[latePaymentFeesType][$eq]') ?? 'fixed';
    const min = Number(q.get('filters[latePaymentFees][$gte]') ?? 0);
    const { rows, total } = await feePage((qb) => qb.where('deleted_tracker', ACTIVE).andWhere('late_payment_fees_type', type).andWhere('late_payment_fees', '>=', min), BY_DUE_DATE_DESC, 10);
    return { records: await withInstitutes(rows), meta: meta(total, 10) };
  },
  [SORT_PATH]: async (q) => {
    const min = Number(q.get('filters[latePaymentFees][$gt]') ?? 0);
    const { rows, total } = await feePage((qb) => qb.where('deleted_tracker', ACTIVE).andWhere('part_payment_allowed', true).andWhere('late_payment_fees', '>', min), [{ column: 'late_payment_fees', order: 'desc' }, { column: 'id', order: 'desc' }], 10);
    return { records: await withInstitutes(rows), meta: meta(total, 10) };
  },
  [RELATION_PATH]: async (q) => {
    const city = q.get('filters[institute][city][$eq]') ?? '';
    const { rows, total } = await feePage((qb) => qb.where('deleted_tracker', ACTIVE).whereIn('institute_id', db('institute').select('id').where({ city, deleted_tracker: ACTIVE })), BY_DUE_DATE_DESC, 10);
    return { records: rows.map(feeTypeOnly), meta: meta(total, 10) };
  },
  [CONTAINSI_PATH]: async (q) => {
    // As the service: the hidden fold column, the needle folded alike, an exact substring test.
    const needle = foldText(q.get('filters[feeType][$containsi]') ?? '');
    // instr() on SQLite, LIKE with the wildcards escaped elsewhere: the dialect's own substring test.
    const like = dialect.like('fee_type__fold', needle, { caseInsensitive: false, mode: 'contains' });
    const contains = (qb: Query): Query => qb.whereRaw(like.sql, like.bindings as Knex.RawBinding[]);
    const { rows, total } = await feePage((qb) => contains(qb.where('deleted_tracker', ACTIVE)), BY_DUE_DATE_DESC, 10);
    return { records: rows.map(feeTypeOnly), meta: meta(total, 10) };
  },
  [DEEP_PATH]: async () => {
    const { rows, total } = await feePage((qb) => qb.where('deleted_tracker', ACTIVE), [{ column: 'id', order: 'asc' }], 10);
    const insts = await institutesById(rows.map((r) => r.institute_id));
    const ids = [...insts.keys()];
    const children = ids.length
      ? await firstPerParent(`SELECT * FROM (SELECT ${FEE_COLS.join(', ')}, ROW_NUMBER() OVER (PARTITION BY institute_id ORDER BY id) AS rn FROM fee_type WHERE deleted_tracker = ? AND institute_id IN (${ids.map(() => '?').join(', ')})) w WHERE rn <= 3 ORDER BY institute_id, rn`, [ACTIVE, ...ids])
      : [];
    const byInst = new Map<unknown, Row[]>();
    for (const c of children) byInst.set(c.institute_id, [...(byInst.get(c.institute_id) ?? []), feeTypeOnly(c)]);
    const records = rows.map((r) => {
      const i = insts.get(r.institute_id);
      return { ...feeTypeOnly(r), institute: i ? { ...institute(i), feeTypes: byInst.get(i.id) ?? [] } : null };
    });
    return { records, meta: meta(total, 10) };
  },
  [M2M_PATH]: async () => {
    const { rows: roles, total } = await pageWithTotal('roles', ROLE_COLS, (qb) => qb.where('deleted_tracker', ACTIVE), [{ column: 'id', order: 'asc' }], 10);
    const ids = roles.map((r) => r.id);
    const perms = ids.length
      ? await firstPerParent(`SELECT * FROM (SELECT l.roles_id AS owner, ${PERM_COLS.map((c) => `p.${c}`).join(', ')}, ROW_NUMBER() OVER (PARTITION BY l.roles_id ORDER BY p.id) AS rn FROM roles_permissions_links l JOIN permissions p ON p.id = l.permissions_id WHERE p.deleted_tracker = ? AND l.roles_id IN (${ids.map(() => '?').join(', ')})) w WHERE rn <= 10 ORDER BY owner, rn`, [ACTIVE, ...ids])
      : [];
    const byRole = new Map<unknown, Row[]>();
    for (const p of perms) byRole.set(p.owner, [...(byRole.get(p.owner) ?? []), { ...common(p), action: p.action }]);
    const records = roles.map((r) => ({ ...common(r), name: r.name, description: r.description, permissions: byRole.get(r.id) ?? [] }));
    return { records, meta: meta(total, 10) };
  },
  [DEEP_PAGE_PATH]: async (q) => {
    const offset = (Number(q.get('page') ?? 1) - 1) * 10;
    const { rows, total } = await feePage((qb) => qb.where('deleted_tracker', ACTIVE), [{ column: 'id', order: 'asc' }], 10, offset);
    return { records: rows.map(feeTypeOnly), meta: meta(total, 10, offset) };
  },
  [GROUP_RECORDS_PATH]: async () => {
    const groups = (await db('fee_type').where('deleted_tracker', ACTIVE).groupBy('late_payment_fees_type').orderByRaw(`late_payment_fees_type ${dialect.sortDirection('asc')}`)
      .select('late_payment_fees_type', db.raw('SUM(late_payment_fees) AS s'), db.raw('COUNT(*) AS n'))) as Row[];
    const rows = await firstPerParent(`SELECT * FROM (SELECT ${FEE_COLS.join(', ')}, ROW_NUMBER() OVER (PARTITION BY late_payment_fees_type ORDER BY id) AS rn FROM fee_type WHERE deleted_tracker = ?) w WHERE rn <= 10 ORDER BY late_payment_fees_type, rn`, [ACTIVE]);
    const entries = groups.map((g) => ({ groupKey: { latePaymentFeesType: g.late_payment_fees_type }, aggregates: { latePaymentFees_sum: g.s === null ? null : Number(g.s) }, n: Number(g.n) }));
    return {
      records: entries.map((e) => ({ ...e.groupKey, ...e.aggregates })),
      meta: meta(entries.length, 10),
      groupMeta: entries.map((e) => ({ groupKey: e.groupKey, aggregates: e.aggregates })),
      groupRecords: entries.map((e) => ({ groupKey: e.groupKey, aggregates: e.aggregates, records: rows.filter((r) => r.late_payment_fees_type === e.groupKey.latePaymentFeesType).map(feeTypeOnly), meta: meta(e.n, 10) })),
    };
  },
};

const app = new Koa();
app.use(koaBody());
app.use(async (ctx) => {
  // Only the benchmark's own list requests, matched whole (the floor is written for each of them).
  const list = ctx.method === 'GET' ? LISTS[decodeURIComponent(ctx.url)] ?? LISTS[ctx.url] : undefined;
  if (list) {
    ctx.body = await list(new URLSearchParams(ctx.querystring));
    return;
  }
  const one = /^\/api\/fee-type\/(\d+)$/.exec(ctx.path);
  if (ctx.method === 'GET' && one) {
    const row = (await db('fee_type').select(FEE_COLS).where({ id: Number(one[1]), deleted_tracker: 'not-deleted' }).first()) as Row | undefined;
    if (!row) {
      ctx.status = 404;
      ctx.body = { error: { status: 404, name: 'NotFoundError', message: 'not found', details: {} } };
      return;
    }
    ctx.body = feeTypeOnly(row);
    return;
  }
  if (ctx.method === 'POST' && ctx.path === '/api/fee-type') {
    const b = ctx.request.body as Row;
    const now = new Date().toISOString();
    const row = { fee_type: b.feeType, institute_id: b.instituteId ?? null, part_payment_allowed: b.partPaymentAllowed ?? false, late_payment_fees_type: b.latePaymentFeesType ?? null, late_payment_fees: b.latePaymentFees ?? null, due_date: b.dueDate ?? null, created_at: now, updated_at: now };
    // INSERT … RETURNING (MySQL: the INSERT, then the row by its id); with OUTBOX_HEADER, in a transaction
    // with its event's outbox row, as the service must write it (issue 15)
    const inserted = ctx.get(OUTBOX_HEADER)
      ? await db.transaction(async (trx) => {
          const r = await dialect.insertReturning(trx as unknown as Knex, 'fee_type', row, FEE_COLS);
          await trx(EVENTS_TABLE).insert({ type: 'record.create', model: 'fee-type', record_id: r.id, actor_user_id: null, actor_token_id: null, created_at: now, data: JSON.stringify(feeTypeOnly(r)) });
          return r;
        })
      : await dialect.insertReturning(db, 'fee_type', row, FEE_COLS);
    const [record] = await withInstitutes([inserted]);
    ctx.body = { statusCode: 200, message: [], error: '', data: { ...record, createdBy: null, updatedBy: null } };
    return;
  }
  ctx.status = 404;
});

// Requests still queued when the run ends fail as the pool closes; the run is over, so say nothing.
app.silent = true;
const server = app.listen(Number(process.env.PORT ?? 1338), '127.0.0.1', () => process.stdout.write('floor ready\n'));
process.on('SIGTERM', () => {
  server.close();
  void db.destroy().then(() => process.exit(0));
});
