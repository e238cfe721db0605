/** Success envelopes of spec 2.1 and 4.3. */
import type { ApiRecord } from './serializer';

export interface Envelope<T> {
  readonly statusCode: number;
  readonly message: string[];
  readonly error: string;
  readonly data: T;
}

export function envelope<T>(data: T, message: string[] = []): Envelope<T> {
  return { statusCode: 200, message, error: '', data };
}

/** Spec 4.3 Recover: `data` = `{ message, data: record }`. */
export function recoverEnvelope(modelName: string, record: ApiRecord): Envelope<{ message: string; data: ApiRecord }> {
  return envelope({ message: `${modelName} ${String(record.id)} successfully recovered`, data: record });
}

/** Spec 4.3 bulk recover: `message` holds `<n> records successfully recovered`; `data` one `{message, data}` per record. */
export function bulkRecoverEnvelope(modelName: string, records: readonly ApiRecord[]): Envelope<{ message: string; data: ApiRecord }[]> {
  return envelope(
    records.map((r) => ({ message: `${modelName} ${String(r.id)} successfully recovered`, data: r })),
    [`${records.length} records successfully recovered`],
  );
}
