/**
 * A small content sniffer: the type a file *is*, read from its first bytes, never from its name or
 * the type the client declared (issue 6, Limits). Recognised: png, jpeg, gif, webp, pdf, zip, text.
 */

/** How many leading bytes the sniffer reads. */
export const SNIFF_BYTES = 4096;

export type SniffedType =
  | 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp' | 'application/pdf' | 'application/zip'
  | 'text/plain' | 'text/html' | 'image/svg+xml' | 'application/xml'
  | 'application/octet-stream';

interface Magic {
  readonly type: SniffedType;
  readonly at: number;
  readonly bytes: readonly number[];
}

const ascii = (s: string): number[] => [...s].map((c) => c.charCodeAt(0));

/** One table of signatures (DESIGN habit 5). */
const MAGIC: readonly (readonly Magic[])[] = [
  [{ type: 'image/png', at: 0, bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] }],
  [{ type: 'image/jpeg', at: 0, bytes: [0xff, 0xd8, 0xff] }],
  [{ type: 'image/gif', at: 0, bytes: ascii('GIF87a') }],
  [{ type: 'image/gif', at: 0, bytes: ascii('GIF89a') }],
  [{ type: 'image/webp', at: 0, bytes: ascii('RIFF') }, { type: 'image/webp', at: 8, bytes: ascii('WEBP') }],
  [{ type: 'application/pdf', at: 0, bytes: ascii('%PDF-') }],
  [{ type: 'application/zip', at: 0, bytes: [0x50, 0x4b, 0x03, 0x04] }],
  [{ type: 'application/zip', at: 0, bytes: [0x50, 0x4b, 0x05, 0x06] }],
  [{ type: 'application/zip', at: 0, bytes: [0x50, 0x4b, 0x07, 0x08] }],
];

function matches(head: Uint8Array, m: Magic): boolean {
  if (head.length < m.at + m.bytes.length) return false;
  return m.bytes.every((b, i) => head[m.at + i] === b);
}

/** Valid UTF-8 (a sequence cut by the end of the sample is fine) without NUL and with few control characters. */
function looksLikeText(head: Uint8Array): boolean {
  let controls = 0;
  for (let i = 0; i < head.length; ) {
    const b = head[i];
    if (b === 0) return false;
    if (b < 0x80) {
      if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x1b) controls++;
      if (b === 0x7f) controls++;
      i++;
      continue;
    }
    const len = b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 && b < 0xe0 ? 2 : 0;
    if (len === 0) return false;
    for (let k = 1; k < len; k++) {
      if (i + k >= head.length) return true; // cut by the sample's end
      if ((head[i + k] & 0xc0) !== 0x80) return false;
    }
    i += len;
  }
  return controls * 100 <= head.length; // at most 1 % odd control bytes
}

/** Markup a browser would render or run: refine `text/plain` so such files are served as attachments. */
function markupKind(head: Uint8Array): SniffedType {
  const start = Buffer.from(head.subarray(0, 512)).toString('utf8').replace(/^\uFEFF/, '').trimStart().toLowerCase();
  if (start.startsWith('<!doctype html') || start.startsWith('<html') || /^<(head|body|script|iframe)\b/.test(start)) return 'text/html';
  if (start.startsWith('<svg') || (start.startsWith('<?xml') && start.includes('<svg'))) return 'image/svg+xml';
  if (start.startsWith('<?xml')) return 'application/xml';
  return 'text/plain';
}

/**
 * The type of a file from its first bytes.
 * @example sniffType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) // 'image/png'
 */
export function sniffType(head: Uint8Array): SniffedType {
  for (const sig of MAGIC) if (sig.every((m) => matches(head, m))) return sig[0].type;
  if (looksLikeText(head)) return markupKind(head);
  return 'application/octet-stream';
}
