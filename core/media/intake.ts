/**
 * Multipart intake: formidable streams each file part to a temporary file under `<uploadsDir>/.tmp`
 * while hashing it, so memory stays flat whatever the size. Parts are judged as they arrive, the first
 * that breaks a rule decides the answer: a part's headers past UPLOAD_PART_HEADER_MAX_BYTES (counted as
 * their bytes arrive, before formidable keeps them), a text part the form does not take or sends twice,
 * the file part past UPLOAD_MAX_FILES; then, while the bytes arrive, a file past UPLOAD_MAX_BYTES and
 * text parts together past BODY_MAX_BYTES. Temporary files are the caller's to `discard()`; on a refusal
 * they are removed here.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { formidable as createForm, multipart, type Part, type PluginFunction } from 'formidable';
import { AppError } from '../errors/app-error';
import { clip } from '../errors/client-text';
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../errors/errors';
import type { RecordContext } from '../records/controller';

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
  /** Text parts by name (each of the form's text parts at most once). */
  readonly fields: ReadonlyMap<string, string>;
  /** The Content-Type a text part declared, by name (absent: it declared none). */
  readonly fieldTypes: ReadonlyMap<string, string>;
  readonly files: readonly IncomingFile[];
  /** Removes the temporary files (always call it, success or not). */
  discard(): Promise<void>;
}

export interface IntakeLimits {
  readonly tmpDir: string;
  /** UPLOAD_MAX_BYTES: one file. */
  readonly maxFileBytes: number;
  /** BODY_MAX_BYTES: the text parts together. */
  readonly maxFieldBytes: number;
  /** UPLOAD_MAX_FILES: file parts per request. */
  readonly maxFiles: number;
  /** UPLOAD_PART_HEADER_MAX_BYTES: one part's header names and values together. */
  readonly maxPartHeaderBytes: number;
}

/** The text parts a form takes, and what an unknown one's error tells the client to do instead. */
export interface FormShape {
  /** Part names read as text whatever Content-Type they declare, each at most once; any other text part is refused. */
  readonly textParts: readonly string[];
  readonly unknownTextHint: string;
}

/** formidable's error codes (formidable/src/FormidableError.js) that mean "too much". */
const TOO_MANY_FILES = 1015;
const FIELDS_TOO_LARGE = 1006;
const FILE_TOO_LARGE = 1016;
const TOTAL_TOO_LARGE = 1009;

class FileTooLarge extends Error {
  readonly code = FILE_TOO_LARGE;
  readonly httpCode = 413;
}

const filesTooMany = (limits: IntakeLimits): PayloadTooLargeError =>
  new PayloadTooLargeError(`at most ${limits.maxFiles} file parts per request (setting UPLOAD_MAX_FILES)`, { setting: 'UPLOAD_MAX_FILES', limit: limits.maxFiles });

const partHeadersTooLarge = (limits: IntakeLimits): PayloadTooLargeError =>
  new PayloadTooLargeError(`a form part's headers (its name, file name and type) are larger than UPLOAD_PART_HEADER_MAX_BYTES (${limits.maxPartHeaderBytes} bytes)`, {
    setting: 'UPLOAD_PART_HEADER_MAX_BYTES',
    limit: limits.maxPartHeaderBytes,
  });

function toAppError(e: unknown, limits: IntakeLimits): AppError {
  if (e instanceof AppError) return e;
  const err = e as { code?: unknown; httpCode?: unknown; message?: unknown };
  switch (err.code) {
    case FILE_TOO_LARGE:
    case TOTAL_TOO_LARGE:
      return new PayloadTooLargeError(`a file is larger than UPLOAD_MAX_BYTES (${limits.maxFileBytes} bytes)`, { setting: 'UPLOAD_MAX_BYTES', limit: limits.maxFileBytes, maxBytes: limits.maxFileBytes });
    case TOO_MANY_FILES:
      return filesTooMany(limits);
    case FIELDS_TOO_LARGE:
      return new PayloadTooLargeError(`the form's text parts are larger than BODY_MAX_BYTES (${limits.maxFieldBytes} bytes together)`, { setting: 'BODY_MAX_BYTES', limit: limits.maxFieldBytes });
  }
  if (err.httpCode === 415) return new UnsupportedMediaTypeError('the multipart body has no boundary');
  return new BadRequestError('malformed multipart body');
}

interface FormidableFile {
  filepath: string;
  originalFilename: string | null;
  mimetype: string | null;
  size: number;
  hash?: string | null;
  write(buffer: Buffer, cb: () => void): void;
  emit(event: 'error', err: Error): boolean;
}

/** What this module uses of formidable's form beyond its typings (formidable/src/Formidable.js). */
interface FormInternals {
  /** Set once the form is refused: it reads nothing more. */
  error: unknown;
  /** The multipart parser, once the plugin made it: an object stream of `{ name, start, end }` marks. */
  _parser: { prependListener(event: 'data', listener: (mark: { name: string; start?: number; end?: number }) => void): unknown } | null;
  /** Refuses the form: `parse` rejects with `err`, open files are destroyed, later bytes are ignored. */
  _error(err: Error): void;
  _handlePart(part: Part): Promise<void>;
}

/**
 * formidable's multipart plugin, plus a count of each part's header bytes (names and values) as the
 * parser marks them: formidable keeps a part's header lines in strings of any length (a 60 MB file name
 * took 18 s and 1.4 GB), so past the limit the form is refused before more of them is kept.
 */
function multipartWithHeaderBound(limits: IntakeLimits): PluginFunction {
  return function (this: unknown, form, options) {
    multipart.call(this, form, options);
    const internals = form as unknown as FormInternals;
    let bytes = 0;
    internals._parser?.prependListener('data', ({ name, start = 0, end = 0 }) => {
      if (name === 'partBegin') bytes = 0;
      else if (name === 'headerField' || name === 'headerValue') {
        bytes += end - start;
        if (bytes > limits.maxPartHeaderBytes) internals._error(partHeadersTooLarge(limits));
      }
    });
  };
}

/**
 * Reads a `multipart/form-data` request. Throws 413 / 400 AppErrors; leaves no temporary file behind on
 * error. `shape.textParts` are read as text whatever Content-Type they declare (formidable would take a
 * typed part for a file): their bytes count against `maxFieldBytes` and never reach a temporary file;
 * the type they declared is in `fieldTypes`, for the caller to judge. A part without a Content-Type is a
 * text part: one the shape does not name answers 400 naming it.
 */
export async function readMultipart(ctx: RecordContext, limits: IntakeLimits, shape: FormShape): Promise<MultipartForm> {
  await mkdir(limits.tmpDir, { recursive: true });
  const fieldTypes = new Map<string, string>();
  const opened: string[] = [];
  const discard = async (): Promise<void> => {
    await Promise.all(opened.map((p) => rm(p, { force: true })));
  };
  const form = createForm({
    uploadDir: limits.tmpDir,
    keepExtensions: false,
    hashAlgorithm: 'sha256',
    // an empty file is a file (formidable refuses one by default, which read as a malformed body)
    allowEmptyFiles: true,
    minFileSize: 0,
    maxFiles: limits.maxFiles,
    maxFileSize: limits.maxFileBytes,
    maxTotalFileSize: limits.maxFileBytes * limits.maxFiles,
    // a back stop: each text part the shape names comes at most once (checked as it begins, below)
    maxFields: Math.max(1, shape.textParts.length),
    maxFieldsSize: limits.maxFieldBytes,
    enabledPlugins: [multipartWithHeaderBound(limits)],
  });
  const internals = form as unknown as FormInternals;
  const seenText = new Set<string>();
  let fileParts = 0;
  /** Why a part is refused as it begins (its headers read, none of its bytes); null: it is read. */
  const refusal = (part: Part): AppError | null => {
    const name = part.name ?? '';
    const text = !part.mimetype || shape.textParts.includes(name);
    if (!text) return ++fileParts > limits.maxFiles ? filesTooMany(limits) : null;
    if (!shape.textParts.includes(name)) return new BadRequestError(`unknown form field "${clip(name)}": ${shape.unknownTextHint}`, { field: clip(name) });
    if (seenText.has(name)) return new BadRequestError(`form field "${clip(name)}" is sent more than once`, { field: clip(name) });
    seenText.add(name);
    return null;
  };
  // formidable awaits this with the parser paused, so a part's bytes wait for its handler
  form.onPart = async (part: Part): Promise<void> => {
    if (internals.error) return; // refused already: no part after it is read
    const refused = refusal(part);
    if (refused) return internals._error(refused);
    if (part.mimetype && shape.textParts.includes(part.name ?? '')) {
      fieldTypes.set(part.name as string, part.mimetype);
      part.mimetype = null; // formidable reads a part without a type as a text field
    }
    return internals._handlePart(part);
  };
  form.on('fileBegin', (_name: string, f: unknown) => {
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
  });
  let rawFields: Record<string, string[] | undefined>;
  let rawFiles: Record<string, FormidableFile[] | undefined>;
  try {
    [rawFields, rawFiles] = (await form.parse(ctx.req)) as unknown as [typeof rawFields, typeof rawFiles];
  } catch (e) {
    // Let the rest of the request drain so the client reads our answer instead of a reset connection.
    ctx.req.resume();
    await new Promise((r) => setTimeout(r, 20)); // formidable unlinks its open files on a timer
    await discard();
    throw toAppError(e, limits);
  }
  const files: IncomingFile[] = [];
  for (const [part, list] of Object.entries(rawFiles)) {
    for (const f of list ?? []) {
      files.push({ part, tmpPath: f.filepath, originalName: f.originalFilename, declaredType: f.mimetype, size: f.size, sha256: String(f.hash ?? '') });
    }
  }
  // formidable lists a file when its write has finished, which need not be the order they were sent in.
  files.sort((a, b) => opened.indexOf(a.tmpPath) - opened.indexOf(b.tmpPath));
  const fields = new Map<string, string>();
  for (const [name, values] of Object.entries(rawFields)) fields.set(name, values?.[0] ?? '');
  return { fields, fieldTypes, files, discard };
}

export const tmpDirOf = (uploadsDir: string): string => join(uploadsDir, '.tmp');
