/**
 * The bytes of record read answers this node holds for clients that have not taken them yet
 * (ANSWER_BUFFER_MAX_BYTES). An answer is made whole before it is sent (core/http/json-answer.ts), and a
 * client that does not read keeps it in this process until HTTP_SEND_TIMEOUT closes its connection. One
 * caller holds at most CALLER_CONCURRENCY of them (its turns last until its answers are taken,
 * core/http/caller-gate.ts); this bounds them all together, whatever the number of callers.
 *
 * A read whose answer would take the total past the bound answers 503 ServiceBusyError naming the setting
 * (nothing was changed: send it again shortly). Answers up to ALWAYS_SENT_BYTES always go, so small reads
 * are never refused because others hold large answers; and a node holding nothing sends any answer, so
 * the bound never refuses an answer ANSWER_MAX_BYTES allows to a node with nothing else to send.
 * Writes are never refused here: their answer comes after the write has been carried out.
 */
import type { ServerResponse } from 'node:http';
import type { Middleware } from 'koa';
import { ServiceBusyError } from '../errors/errors';
import { answerGone } from './caller-gate';
import type { RequestState } from './state';

/** Answers of at most this many bytes are sent whatever the total held. */
export const ALWAYS_SENT_BYTES = 64 * 1024;

const READS = new Set(['GET', 'HEAD']);

export class AnswerBuffer {
  private held = 0;

  constructor(readonly maxBytes: number) {}

  /** Bytes of answers handed to sockets and not yet taken by their clients. */
  get bytes(): number {
    return this.held;
  }

  /**
   * Counts `bytes` of the answer `res` carries until it has been taken by the client (`finish`) or its
   * connection is gone (`close`); throws ServiceBusyError when they do not fit.
   */
  hold(res: ServerResponse, bytes: number): void {
    // A client already gone: its answer is never sent, and its `close` has passed.
    if (answerGone(res)) return;
    if (bytes > ALWAYS_SENT_BYTES && this.held > 0 && this.held + bytes > this.maxBytes) throw ServiceBusyError.answersHeld(this.maxBytes);
    this.held += bytes;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.held -= bytes;
    };
    res.once('finish', release);
    res.once('close', release);
  }
}

/** The bound as middleware on the record routes: counts every read answer of known length. */
export function answerBuffer(buffer: AnswerBuffer): Middleware<RequestState> {
  return async (ctx, next) => {
    await next();
    const bytes = ctx.response.length;
    if (READS.has(ctx.method) && ctx.body != null && typeof bytes === 'number' && bytes > 0) buffer.hold(ctx.res, bytes);
  };
}
