/**
 * The record forms of spec 4.3: create sends `data` (the record as a JSON string) and file parts named
 * after media fields; update sends `data` or `updateDto` plus file parts named after a media field or
 * `files`. `data` / `updateDto` are text whatever Content-Type they carry (JSON types; any other: 400),
 * so never a file. The JSON goes through the same validators as a JSON body.
 */
import { clip } from '../errors/client-text';
import { BadRequestError } from '../errors/errors';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../http/body';
import type { RecordContext } from '../records/controller';
import { type FormShape, type IncomingFile, type IntakeLimits, readMultipart } from './intake';

/** Text parts that may hold the record (spec 4.3: `data` on create, `updateDto` on update; either is taken on both). */
export const RECORD_PARTS = ['data', 'updateDto'] as const;

/** A record form's text parts: `data` and `updateDto`, each at most once; any other text part answers 400 naming it. */
const RECORD_FORM: FormShape = { textParts: RECORD_PARTS, unknownTextHint: 'send the record as "data" (or "updateDto") and files as file parts' };

export interface RecordForm {
  readonly body: unknown;
  readonly files: readonly IncomingFile[];
  discard(): Promise<void>;
}

export function isMultipart(ctx: RecordContext): boolean {
  return Boolean(ctx.is('multipart/form-data'));
}

/**
 * Why a record part's declared Content-Type is refused; null when it is read as JSON: none, application/json,
 * text/plain or any `+json` type (a browser's JSON Blob, curl's `;type=`), in UTF-8 (the part is decoded so).
 */
export function recordPartTypeProblem(part: string, declared: string | undefined): string | null {
  if (declared === undefined) return null;
  const [essence, ...params] = declared.split(';').map((x) => x.trim().toLowerCase());
  const jsonText = essence === 'application/json' || essence === 'text/plain' || /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+\+json$/.test(essence);
  if (!jsonText) return `form part "${part}" holds the record as JSON: send it without a Content-Type or as application/json, text/plain or a +json type, not "${clip(declared)}"`;
  const charset = params.find((p) => p.startsWith('charset='))?.slice('charset='.length).replace(/"/g, '');
  if (charset !== undefined && !['utf-8', 'utf8', 'us-ascii'].includes(charset)) return `form part "${part}" is read as UTF-8: charset "${clip(charset)}" is not taken`;
  return null;
}

export async function readRecordForm(ctx: RecordContext, limits: IntakeLimits): Promise<RecordForm> {
  const form = await readMultipart(ctx, limits, RECORD_FORM);
  try {
    for (const part of RECORD_PARTS) {
      const declared = form.fieldTypes.get(part);
      const problem = recordPartTypeProblem(part, declared);
      if (problem) throw new BadRequestError(problem, { part, contentType: declared === undefined ? declared : clip(declared) });
    }
    // unknown and repeated text parts were refused as they arrived (intake.ts)
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
