/**
 * Attempt outcomes written together: the first is written at once; those that finish while a write
 * is under way wait for it and go out in the next one, one commit for them all. At 1,000 deliveries a
 * second that is a few commits a second instead of a thousand (on SQLite each took the one writer
 * lock from the writes the deliveries announce; on PostgreSQL each was a WAL flush).
 */
import type { Finish, WebhookStore } from './store';

/** Outcomes per write, at most. */
const BATCH_MAX = 200;

interface Waiting {
  readonly item: Finish;
  readonly resolve: (recorded: boolean) => void;
  readonly reject: (err: unknown) => void;
}

export class FinishBatch {
  private readonly waiting: Waiting[] = [];
  private writing: Promise<void> | null = null;

  constructor(private readonly store: WebhookStore) {}

  /** Records `item` (with whatever else finishes meanwhile): whether this node still held its lease. */
  finish(item: Finish): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.write();
    });
  }

  private write(): void {
    if (this.writing || this.waiting.length === 0) return;
    const batch = this.waiting.splice(0, BATCH_MAX);
    this.writing = this.store
      .finishAll(batch.map((w) => w.item))
      .then(
        (recorded) => batch.forEach((w, i) => w.resolve(recorded[i])),
        (err: unknown) => batch.forEach((w) => w.reject(err)),
      )
      .finally(() => {
        this.writing = null;
        this.write();
      });
  }
}
