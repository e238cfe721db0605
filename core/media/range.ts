/**
 * `Range: bytes=…` of a GET (RFC 9110 §14): one range is honoured (206); several, or a header we do not
 * read, answer the whole file (200, which the RFC allows); a range outside the file is unsatisfiable (416).
 */
export type RangeAnswer =
  | { readonly kind: 'whole' }
  | { readonly kind: 'unsatisfiable' }
  | { readonly kind: 'part'; readonly start: number; readonly end: number };

const WHOLE: RangeAnswer = { kind: 'whole' };
const UNSATISFIABLE: RangeAnswer = { kind: 'unsatisfiable' };

/** `end` is inclusive, as in Content-Range. */
export function parseRange(header: string | undefined, size: number): RangeAnswer {
  if (!header) return WHOLE;
  const m = /^\s*bytes\s*=\s*(.*)$/i.exec(header);
  if (!m || m[1].includes(',')) return WHOLE; // another unit, or several ranges: the whole file
  const spec = /^(\d*)-(\d*)$/.exec(m[1].trim());
  if (!spec || (spec[1] === '' && spec[2] === '')) return WHOLE; // malformed: ignored, as the RFC says
  if (spec[1] === '') {
    // `-n`: the last n bytes (all of them when n ≥ size)
    const n = Number(spec[2]);
    if (n === 0 || size === 0) return UNSATISFIABLE;
    return { kind: 'part', start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(spec[1]);
  if (spec[2] !== '' && Number(spec[2]) < start) return WHOLE; // `5-2` is invalid syntax, not an unsatisfiable range
  if (start >= size) return UNSATISFIABLE;
  return { kind: 'part', start, end: spec[2] === '' ? size - 1 : Math.min(Number(spec[2]), size - 1) };
}
