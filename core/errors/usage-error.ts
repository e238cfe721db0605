/**
 * Input an admin command refuses (an option value breaking a field's rule, a bad row of an import): one
 * `error:` line naming the field and the rule, exit code 2 as commander's own usage errors, and nothing
 * written. Not an AppError: it has no HTTP status; only the admin CLI maps it (admin-cli/index.ts).
 */
export const USAGE_EXIT_CODE = 2;

export class UsageError extends Error {
  readonly exitCode = USAGE_EXIT_CODE;

  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
