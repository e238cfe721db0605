import { AppError } from '../errors/app-error';

/** A refusal from a `before*` hook: the client gets `status` (400–599) and `message`; nothing is written. */
export class HookError extends AppError {
  readonly status: number;

  constructor(status: number, message: string, details: Record<string, unknown> = {}) {
    super(message, details);
    this.status = Number.isInteger(status) && status >= 400 && status <= 599 ? status : 400;
  }
}
