/**
 * The floor: a minimal Koa + knex server, hand-written for fee-type with the ideal SQL, answering the
 * benchmark's list, findOne and create requests with the same JSON as the service. Run as a child
 * process by bench/run.ts: `node dist/bench/floor.js` with DATABASE_URL, DATABASE_SCHEMA, PORT.
 */
import Koa from 'koa';
import { koaBody } from 'koa-body';
import { loadConfig } from '../config';
import { connect } from '../database/connect';

const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
const { db } = connect(config.database);

const FEE_COLS = ['id', 'created_at', 'updated_at', 'deleted_at', 'deleted_tracker', 'published_at', 'locale_name', 'default_entity_locale_id', 'created_by_id', 'updated_by_id', 'fee_type', 'institute_id', 'part_payment_allowed', 'late_payment_fees_type', 'late_payment_fees', 'due_date'];
const INST_COLS = ['id', 'created_at', 'updated_at', 'deleted_at', 'deleted_tracker', 'published_at', 'locale_name', 'default_entity_locale_id', 'created_by_id', 'updated_by_id', 'name', 'code', 'city'];

type Row = Record<string, unknown>;
const iso = (v: unknown): unknown => (v instanceof Date ? v.toISOString() : v);
const num = (v: unknown): unknown => (typeof v === 'string' ? Number(v) : v);

function common(r: Row): Row {
  return {
    id: r.id, createdAt: iso(r.created_at), updatedAt: iso(r.updated_at), deletedAt: iso(r.deleted_at), deletedTracker: r.deleted_tracker === 'not-deleted' ? 'not-deleted' : 'deleted',
    publishedAt: iso(r.published_at), localeName: r.locale_name, defaultEntityLocaleId: r.default_entity_locale_id, createdById: r.created_by_id, updatedById: r.updated_by_id,
  };
}
const institute = (r: Row): Row => ({ ...common(r), name: r.name, code: r.code, city: r.city });
const feeType = (r: Row, inst: Row | undefined): Row => ({
  ...common(r), feeType: r.fee_type, instituteId: r.institute_id, partPaymentAllowed: r.part_payment_allowed === null ? null : Boolean(r.part_payment_allowed),
  latePaymentFeesType: r.late_payment_fees_type, latePaymentFees: num(r.late_payment_fees), dueDate: r.due_date instanceof Date ? r.due_date.toISOString().slice(0, 10) : r.due_date,
  institute: inst ? institute(inst) : null,
});

async function withInstitutes(rows: Row[]): Promise<Row[]> {
  const ids = [...new Set(rows.map((r) => r.institute_id).filter((v) => v !== null))] as number[];
  const insts: Row[] = ids.length ? await db('institute').select(INST_COLS).whereIn('id', ids).andWhere('deleted_tracker', 'not-deleted') : [];
  const byId = new Map(insts.map((i) => [i.id, i]));
  return rows.map((r) => feeType(r, byId.get(r.institute_id)));
}

const app = new Koa();
app.use(koaBody());
app.use(async (ctx) => {
  if (ctx.method === 'GET' && ctx.path === '/api/fee-type') {
    // the benchmark's list: two filters, one sort, limit 10, populate institute
    const q = new URLSearchParams(ctx.querystring);
    const type = q.get('filters[latePaymentFeesType][$eq]') ?? 'fixed';
    const min = Number(q.get('filters[latePaymentFees][$gte]') ?? 0);
    const limit = Math.min(Number(q.get('limit') ?? 10), 100);
    const where = (qb: ReturnType<typeof db>) => qb.where('deleted_tracker', 'not-deleted').andWhere('late_payment_fees_type', type).andWhere('late_payment_fees', '>=', min);
    const [rows, [count]] = await Promise.all([
      where(db('fee_type').select(FEE_COLS)).orderBy([{ column: 'due_date', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(limit),
      where(db('fee_type').count({ count: '*' })),
    ]);
    const total = Number((count as Row).count);
    ctx.body = { records: await withInstitutes(rows as Row[]), meta: { totalRecords: total, currentPage: 1, totalPages: Math.ceil(total / limit) } };
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
    const { institute: _i, ...record } = feeType(row, undefined);
    ctx.body = record;
    return;
  }
  if (ctx.method === 'POST' && ctx.path === '/api/fee-type') {
    const b = ctx.request.body as Row;
    const now = new Date().toISOString();
    const [inserted] = await db('fee_type')
      .insert({ fee_type: b.feeType, institute_id: b.instituteId ?? null, part_payment_allowed: b.partPaymentAllowed ?? false, late_payment_fees_type: b.latePaymentFeesType ?? null, late_payment_fees: b.latePaymentFees ?? null, due_date: b.dueDate ?? null, created_at: now, updated_at: now })
      .returning(FEE_COLS);
    const [record] = await withInstitutes([inserted as Row]);
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
