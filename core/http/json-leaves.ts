/**
 * Values of `json` attributes, marked when a row is read (core/records/serializer.ts): the answer
 * serializer (json-answer.ts) writes each with one native JSON.stringify, its text kept for the answer
 * and reused wherever the same value appears again, instead of walking it piece by piece. A value of
 * 8,000 arrays 30 deep (496 KB) took 0.3–0.7 s to walk, each piece passing through a generator per
 * level; one stringify takes a few milliseconds.
 */
const leaves = new WeakSet<object>();

/** Marks `v` (an object or array from a `json` attribute) as a value to write whole. */
export function markJsonLeaf(v: unknown): unknown {
  if (typeof v === 'object' && v !== null) leaves.add(v);
  return v;
}

/** Is `v` a marked `json` attribute value? */
export const isJsonLeaf = (v: object): boolean => leaves.has(v);
