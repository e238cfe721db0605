/**
 * Multipart intake: koa-body (formidable) streams each file part to a temporary file under
 * `<uploadsDir>/.tmp` while hashing it, so memory stays flat whatever the size. Limits: per-file size
 * (checked while the bytes arrive, not after), file and field counts. Temporary files are the caller's
 * to `discard()`; on a parse error they are removed here.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { AppError } from '../errors/app-error';
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../errors/errors';
import type { RecordContext } from '../records/controller';
import { MAX_FILES_PER_REQUEST, MAX_FORM_FIELDS } from './limits';

/** One received file part, still in its temporary file. */
export interface IncomingFile {
  /** The part name (a media field, or `files`). */
  readonly part: string;
  readonly tmpPath: string;
  /** As the client sent it; not trusted (see mime.ts / sniff.ts). */
  readonly originalName: string | null;
  readonly declaredType: string | null;
  readonly size: number;
  readonly sha256: string;
}

export interface MultipartForm {
  /** Text parts by name (a name sent twice → 400). */
  readonly fields: ReadonlyMap<string, string>;
  /** The Content-Type a text part named in `textParts` declared, by name (absent: it declared none). */
  readonly fieldTypes: ReadonlyMap<string, string>;
  readonly files: readonly IncomingFile[];
  /** Removes the temporary files (always call it, success or not). */
  discard(): Promise<void>;
}

export interface IntakeLimits {
  readonly tmpDir: string;
  readonly maxFileBytes: number;
  readonly maxFieldBytes: number;
}

/** formidable's error codes (formidable/src/FormidableError.js) that mean "too much". */
const TOO_MANY_FILES = 1015;
const TOO_MANY_FIELDS = 1007;
const FIELDS_TOO_LARGE = 1006;
const FILE_TOO_LARGE = 1016;
const TOTAL_TOO_LARGE = 1009;

class FileTooLarge extends Error {
  readonly code = FILE_TOO_LARGE;
  readonly httpCode = 413;
}

function toAppError(e: unknown, limits: IntakeLimits): AppError {
  if (e instanceof AppError) return e;
  const err = e as { code?: unknown; httpCode?: unknown; message?: unknown };
  switch (err.code) {
    case FILE_TOO_LARGE:
    case TOTAL_TOO_LARGE:
      return new PayloadTooLargeError(`a file is larger than UPLOAD_MAX_BYTES (${limits.maxFileBytes} bytes)`, { setting: 'UPLOAD_MAX_BYTES', limit: limits.maxFileBytes, maxBytes: limits.maxFileBytes });
    case TOO_MANY_FILES:
      return new PayloadTooLargeError(`at most ${MAX_FILES_PER_REQUEST} files per request`, { maxFiles: MAX_FILES_PER_REQUEST });
    case TOO_MANY_FIELDS:
      return new PayloadTooLargeError(`at most ${MAX_FORM_FIELDS} form fields besides files per request`, { maxFields: MAX_FORM_FIELDS });
    case FIELDS_TOO_LARGE:
      return new PayloadTooLargeError(`the form's text parts are larger than BODY_MAX_BYTES (${limits.maxFieldBytes} bytes together)`, { setting: 'BODY_MAX_BYTES', limit: limits.maxFieldBytes });
  }
  if (err.httpCode === 415) return new UnsupportedMediaTypeError('the multipart body has no boundary');
  return new BadRequestError('malformed multipart body');
}

const single = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

interface FormidableFile {
  filepath: string;
  originalFilename: string | null;
  mimetype: string | null;
  size: number;
  hash?: string | null;
  write(buffer: Buffer, cb: () => void): void;
  emit(event: 'error', err: Error): boolean;
}

/** What formidable tells of a part before reading it. */
interface FormidablePart {
  name: string | null;
  mimetype: string | null;
}

/**
 * Reads a `multipart/form-data` request. Throws 413 / 400 AppErrors; leaves no temporary file behind on error.
 * `textParts`: part names read as text whatever Content-Type they declare (formidable would take a typed
 * part for a file): their bytes count against `maxFieldBytes` and never reach a temporary file; the type
 * they declared is in `fieldTypes`, for the caller to judge.
 */
export async function readMultipart(ctx: RecordContext, limits: IntakeLimits, textParts: readonly string[] = []): Promise<MultipartForm> {
  await mkdir(limits.tmpDir, { recursive: true });
  const fieldTypes = new Map<string, string>();
  const opened: string[] = [];
  const discard = async (): Promise<void> => {
    await Promise.all(opened.map((p) => rm(p, { force: true })));
  };
  const parse = koaBody({
    json: false,
    urlencoded: false,
    text: false,
    multipart: true,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH],
    formidable: {
      uploadDir: limits.tmpDir,
      keepExtensions: false,
      hashAlgorithm: 'sha256',
      maxFiles: MAX_FILES_PER_REQUEST,
      maxFileSize: limits.maxFileBytes,
      maxTotalFileSize: limits.maxFileBytes * MAX_FILES_PER_REQUEST,
      maxFields: MAX_FORM_FIELDS,
      maxFieldsSize: limits.maxFieldBytes,
      onPart: (p: unknown, handle: (p: never) => void) => {
        const part = p as FormidablePart;
        if (part.name !== null && part.mimetype && textParts.includes(part.name)) {
          fieldTypes.set(part.name, part.mimetype);
          part.mimetype = null; // formidable reads a part without a type as a text field
        }
        handle(part as never);
      },
      onFileBegin: (_name: string, f: unknown) => {
        // formidable checks a file's size only when it ends; stop a too-large one as its bytes arrive.
        const file = f as FormidableFile;
        opened.push(file.filepath);
        const write = file.write.bind(file);
        let seen = 0;
        file.write = (buffer: Buffer, cb: () => void) => {
          seen += buffer.length;
          if (seen > limits.maxFileBytes) {
            file.emit('error', new FileTooLarge('file too large'));
            return;
          }
          write(buffer, cb);
        };
      },
    },
  }) as unknown as Middleware;
  try {
    await parse(ctx, async () => undefined);
  } catch (e) {
    // Let the rest of the request drain so the client reads our answer instead of a reset connection.
    ctx.req.resume();
    await new Promise((r) => setTimeout(r, 20)); // formidable unlinks its open files on a timer
    await discard();
    throw toAppError(e, limits);
  }
  const rawFields = (ctx.request.body ?? {}) as Record<string, unknown>;
  const rawFiles = (ctx.request.files ?? {}) as unknown as Record<string, FormidableFile | FormidableFile[]>;
  const files: IncomingFile[] = [];
  for (const [part, value] of Object.entries(rawFiles)) {
    for (const f of single(value)) {
      files.push({ part, tmpPath: f.filepath, originalName: f.originalFilename, declaredType: f.mimetype, size: f.size, sha256: String(f.hash ?? '') });
    }
  }
  // formidable lists a file when its write has finished, which need not be the order they were sent in.
  files.sort((a, b) => opened.indexOf(a.tmpPath) - opened.indexOf(b.tmpPath));
  const fields = new Map<string, string>();
  for (const [name, value] of Object.entries(rawFields)) {
    if (typeof value !== 'string') {
      await discard();
      throw new BadRequestError(`form field "${name}" is sent more than once`);
    }
    fields.set(name, value);
  }
  ctx.request.body = undefined;
  return { fields, fieldTypes, files, discard };
}

export const tmpDirOf = (uploadsDir: string): string => join(uploadsDir, '.tmp');
