/**
 * ONE table of filter operators (spec 4.4): arity, which value classes accept them, and the positive
 * operator each negative one negates. TS types are derived from it (DESIGN habit 5).
 */
import type { ValueClass } from '../registry/attribute-kinds';

const TEXT = ['text'] as const;
const ORDERED = ['text', 'number', 'date'] as const;
const EQUALITY = ['text', 'number', 'date', 'boolean'] as const;
const ANY = ['text', 'number', 'date', 'boolean', 'json'] as const;

export const OPERATORS = {
  $eq: { arity: 'one', classes: EQUALITY, negates: null },
  $eqi: { arity: 'one', classes: TEXT, negates: null },
  $ne: { arity: 'one', classes: EQUALITY, negates: '$eq' },
  $nei: { arity: 'one', classes: TEXT, negates: '$eqi' },
  $lt: { arity: 'one', classes: ORDERED, negates: null },
  $lte: { arity: 'one', classes: ORDERED, negates: null },
  $gt: { arity: 'one', classes: ORDERED, negates: null },
  $gte: { arity: 'one', classes: ORDERED, negates: null },
  $in: { arity: 'list', classes: EQUALITY, negates: null },
  $notIn: { arity: 'list', classes: EQUALITY, negates: '$in' },
  $contains: { arity: 'one', classes: TEXT, negates: null },
  $notContains: { arity: 'one', classes: TEXT, negates: '$contains' },
  $containsi: { arity: 'one', classes: TEXT, negates: null },
  $notContainsi: { arity: 'one', classes: TEXT, negates: '$containsi' },
  $null: { arity: 'flag', classes: ANY, negates: null },
  $notNull: { arity: 'flag', classes: ANY, negates: '$null' },
  $between: { arity: 'pair', classes: ORDERED, negates: null },
  $startsWith: { arity: 'one', classes: TEXT, negates: null },
  $startsWithi: { arity: 'one', classes: TEXT, negates: null },
  $endsWith: { arity: 'one', classes: TEXT, negates: null },
  $endsWithi: { arity: 'one', classes: TEXT, negates: null },
} as const satisfies Record<string, { arity: 'one' | 'list' | 'pair' | 'flag'; classes: readonly ValueClass[]; negates: string | null }>;

export type Operator = keyof typeof OPERATORS;
/** The operators that are not the negation of another: the compiler's vocabulary. */
export type PositiveOperator = { [K in Operator]: (typeof OPERATORS)[K]['negates'] extends null ? K : never }[Operator];

export const LOGICAL = ['$and', '$or', '$not'] as const;

export function isOperator(key: string): key is Operator {
  return Object.prototype.hasOwnProperty.call(OPERATORS, key);
}

/** `$ne` → `{ op: '$eq', negated: true }`; `$eq` → `{ op: '$eq', negated: false }`. */
export function positiveForm(op: Operator): { op: PositiveOperator; negated: boolean } {
  const negates = OPERATORS[op].negates;
  return negates === null ? { op: op as PositiveOperator, negated: false } : { op: negates as PositiveOperator, negated: true };
}

export function operatorAllows(op: Operator, cls: ValueClass): boolean {
  return (OPERATORS[op].classes as readonly ValueClass[]).includes(cls);
}

/**
 * The `…i` operators as the case-sensitive operator they become on a folded column with a folded
 * needle (core/registry/fold.ts): `$eqi x` is `<column>__fold $eq fold(x)`.
 */
export const FOLDED_AS: { readonly [K in PositiveOperator]?: PositiveOperator } = {
  $eqi: '$eq',
  $containsi: '$contains',
  $startsWithi: '$startsWith',
  $endsWithi: '$endsWith',
};
