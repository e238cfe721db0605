/**
 * Client text an error quotes (a field or part name, a query key or value, a header value) is cut to
 * CLIENT_TEXT_MAX characters, the rest replaced by an ellipsis: an error answer names what the client
 * sent without echoing all of it (a 30 MB part name made a 30 MB error body). Every message and detail
 * built from client input of unbounded length goes through `clip`.
 */
export const CLIENT_TEXT_MAX = 100;

const ELLIPSIS = '…';

/** `text` when it has at most `max` characters, else its first `max` (a surrogate pair is never split) and `…`. */
export function clip(text: string, max = CLIENT_TEXT_MAX): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? max - 1 : max;
  return text.slice(0, end) + ELLIPSIS;
}
