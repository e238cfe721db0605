/**
 * The record forms of spec 4.3: create sends `data` (the record as a JSON string) and file parts named
 * after media fields; update sends `data` or `updateDto` plus file parts named after a media field or
 * `files`. The JSON goes through the same validators as a JSON body.
 */
import { BadRequestError } from '../errors/errors';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../http/body';
import type { RecordContext } from '../records/controller';
import { type IncomingFile, type IntakeLimits, readMultipart } from './intake';

/** Text parts that may hold the record (spec 4.3: `data` on create, `updateDto` on update; either is taken on both). */
export const RECORD_PARTS = ['data', 'updateDto'] as const;

export interface RecordForm {
  readonly body: unknown;
  readonly files: readonly IncomingFile[];
  discard(): Promise<void>;
}

export function isMultipart(ctx: RecordContext): boolean {
  return Boolean(ctx.is('multipart/form-data'));
}

export async function readRecordForm(ctx: RecordContext, limits: IntakeLimits): Promise<RecordForm> {
  const form = await readMultipart(ctx, limits);
  try {
    const unknown = [...form.fields.keys()].filter((k) => !(RECORD_PARTS as readonly string[]).includes(k));
    if (unknown.length > 0) throw new BadRequestError(`unknown form field "${unknown[0]}": send the record as "data" (or "updateDto") and files as file parts`);
    const given = RECORD_PARTS.filter((k) => form.fields.has(k));
    if (given.length > 1) throw new BadRequestError('send the record as "data" or as "updateDto", not both');
    const raw = given.length === 1 ? (form.fields.get(given[0]) as string) : '{}';
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      throw new BadRequestError(`form field "${given[0] ?? 'data'}" is not valid JSON`);
    }
    // the same nesting limit as a JSON body (core/http/body.ts)
    if (jsonDepthExceeds(body, MAX_JSON_DEPTH)) throw new BadRequestError(`form field "${given[0] ?? 'data'}" is nested deeper than ${MAX_JSON_DEPTH} levels`);
    return { body, files: form.files, discard: form.discard };
  } catch (e) {
    await form.discard();
    throw e;
  }
}
