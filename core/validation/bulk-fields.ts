/**
 * Spec 7: a validation failure's `details.fields` maps a field name to its messages. A bulk call's items
 * fail one by one (`details.errors: [{ index, fields }]`); its `details.fields` merges their messages per
 * field name, each naming its item (`"item 1: must be string"`), in the order of the items.
 */

/** One failing item of a bulk call. */
export interface ItemFields {
  readonly index: number;
  readonly fields: Readonly<Record<string, readonly string[]>>;
}

export function mergedItemFields(errors: readonly ItemFields[]): Record<string, string[]> {
  // A Map, then fromEntries: a field named `__proto__` becomes an own key like any other.
  const merged = new Map<string, string[]>();
  for (const { index, fields } of errors) {
    for (const [name, messages] of Object.entries(fields)) {
      const list = merged.get(name) ?? [];
      for (const m of messages) list.push(`item ${index}: ${m}`);
      merged.set(name, list);
    }
  }
  return Object.fromEntries(merged);
}
