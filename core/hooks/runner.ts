/** Runs the registered hooks of a write, in registration order (plugins first, then project files). */
import type { Logger } from 'pino';
import { AppError } from '../errors/app-error';
import { HookError } from './error';
import type { AfterContext, AfterHook, BeforeContext, BeforeHook, LifecycleHooks, WriteKind } from './types';

const cap = (k: WriteKind): Capitalize<WriteKind> => (k.charAt(0).toUpperCase() + k.slice(1)) as Capitalize<WriteKind>;

/**
 * Which errors of a before hook's own queries are the transaction's, not the hook's: a deadlock, a lost
 * database, a statement past QUERY_TIMEOUT. They pass through unwrapped, so the write answers them as any
 * write does (503 WriteConflictError, 503, 504) instead of a 500 "hook failed".
 */
export type TransactionFault = (err: unknown) => boolean;

export class HookRunner {
  private readonly sets: LifecycleHooks[] = [];

  constructor(
    private readonly log: Logger,
    private readonly transactionFault: TransactionFault = () => false,
  ) {}

  add(hooks: LifecycleHooks): void {
    this.sets.push(hooks);
  }

  private applies(h: LifecycleHooks, model: string): boolean {
    return h.models === undefined || h.models.includes(model);
  }

  /** Any hook for this write? (Spares the caller the work of building contexts.) */
  has(kind: WriteKind, model: string): boolean {
    return this.sets.some((h) => this.applies(h, model) && (h[`before${cap(kind)}`] !== undefined || h[`after${cap(kind)}`] !== undefined));
  }

  /** Inside the transaction: a throw refuses the write (an AppError keeps its status, a transaction fault is the write's; anything else is a 500). */
  async before(kind: WriteKind, ctx: BeforeContext): Promise<void> {
    for (const h of this.sets) {
      const fn = h[`before${cap(kind)}`] as BeforeHook | undefined;
      if (!fn || !this.applies(h, ctx.model)) continue;
      try {
        await fn(ctx);
      } catch (e) {
        if (e instanceof AppError || this.transactionFault(e)) throw e;
        this.log.error({ err: e, model: ctx.model, hook: `before${cap(kind)}` }, 'hooks: a before hook failed');
        throw new HookError(500, `before${cap(kind)} hook failed`);
      }
    }
  }

  /** After the commit: errors are logged, never answered (the write stands). */
  async after(kind: WriteKind, ctx: AfterContext): Promise<void> {
    for (const h of this.sets) {
      const fn = h[`after${cap(kind)}`] as AfterHook | undefined;
      if (!fn || !this.applies(h, ctx.model)) continue;
      try {
        await fn(ctx);
      } catch (e) {
        this.log.error({ err: e, model: ctx.model, id: ctx.id, hook: `after${cap(kind)}` }, 'hooks: an after hook failed (the write is committed)');
      }
    }
  }
}
