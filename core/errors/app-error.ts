/** Every error the service answers on purpose; the status lives on the class (DESIGN habit 1). */
export abstract class AppError extends Error {
  abstract readonly status: number;
  readonly details: Record<string, unknown>;

  constructor(message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = new.target.name;
    this.details = details;
  }
}
