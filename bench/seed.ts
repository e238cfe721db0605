/** Seeds 100 institutes and N fee types straight through knex, in batches, with a progress bar. */
import { SingleBar } from 'cli-progress';
import type { Knex } from 'knex';
import { foldColumnName, foldText } from '../core/registry/fold';

export const INSTITUTES = 100;
const BATCH = 500;

/** The hidden case-fold columns the service writes with its text attributes (core/registry/fold.ts). */
function folded(row: Record<string, unknown>, textColumns: readonly string[]): Record<string, unknown> {
  for (const c of textColumns) row[foldColumnName(c)] = typeof row[c] === 'string' ? foldText(row[c] as string) : null;
  return row;
}

/** Deterministic row i: the same data on every database and every run. */
export function feeTypeRow(i: number, now: string): Record<string, unknown> {
  const day = new Date(Date.UTC(2024, 0, 1) + (i % 1096) * 86_400_000).toISOString().slice(0, 10);
  return folded({
    fee_type: `Fee ${String(i).padStart(8, '0')}`,
    institute_id: 1 + (i % INSTITUTES),
    part_payment_allowed: i % 3 === 0,
    late_payment_fees_type: i % 2 === 0 ? 'fixed' : 'percentage',
    late_payment_fees: (i % 500) / 10,
    due_date: day,
    created_at: now,
    updated_at: now,
    deleted_tracker: 'not-deleted',
  }, ['fee_type', 'late_payment_fees_type']);
}

export async function seed(db: Knex, rows: number, quiet = false): Promise<void> {
  const now = new Date().toISOString();
  await db.transaction(async (trx) => {
    const institutes = Array.from({ length: INSTITUTES }, (_, i) => folded({ name: `Institute ${i + 1}`, code: `I${i + 1}`, city: `City ${i % 7}`, created_at: now, updated_at: now, deleted_tracker: 'not-deleted' }, ['name', 'code', 'city']));
    await trx('institute').insert(institutes);
  });
  await seedMore(db, 0, rows, quiet);
}

/** Fee types `from` … `rows - 1` (bench --scale: from 10,000 to 1,000,000 on the same database). */
export async function seedMore(db: Knex, from: number, rows: number, quiet = false): Promise<void> {
  const now = new Date().toISOString();
  const bar = quiet ? null : new SingleBar({ format: 'seeding fee types [{bar}] {percentage}% {value}/{total} {eta_formatted}' });
  bar?.start(rows, from);
  for (let start = from; start < rows; start += BATCH * 20) {
    await db.transaction(async (trx) => {
      for (let b = start; b < Math.min(rows, start + BATCH * 20); b += BATCH) {
        const batch = Array.from({ length: Math.min(BATCH, rows - b) }, (_, k) => feeTypeRow(b + k, now));
        await trx('fee_type').insert(batch);
        bar?.update(b + batch.length);
      }
    });
  }
  bar?.stop();
}
