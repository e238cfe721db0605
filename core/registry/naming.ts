/** Path ↔ table ↔ column rules (pure). */

/** `feeType` → `fee_type`; `instituteUserKey` → `institute_user_key`. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .replace(/-/g, '_')
    .toLowerCase();
}

/** `fee-type` → `fee_type` (default table name). */
export function tableName(modelName: string): string {
  return modelName.replace(/-/g, '_');
}

export const MODEL_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
export const ATTRIBUTE_NAME = /^[a-z][a-zA-Z0-9]*$/;

/**
 * Names every JavaScript object already has (`constructor`, `toString`, `valueOf`, `hasOwnProperty` …,
 * Object.prototype's own names): a field so named would read as set on every body that leaves it out.
 */
export const INHERITED_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

/** The boot error's problem for a reserved attribute name. */
export const inheritedNameProblem = (name: string): string => `attribute name "${name}" is reserved (every JavaScript object has a property "${name}"); choose another name`;
export const SQL_IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;
/** A permission action a model declares (`writeAction: assignRoles`): camelCase like the record actions. */
export const ACTION_NAME = /^[a-z][a-zA-Z0-9]{0,63}$/;
