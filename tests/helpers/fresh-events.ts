/** The outbox events of one model committed since the last look (tests of events and hooks). */
import type { StoredEvent } from '../../core/events/types';
import type { TestApp } from './test-app';

export interface FreshEvents {
  /** Starts after every event committed so far. */
  skipAll(): Promise<void>;
  /** `model`'s events committed since the last call (or `skipAll`), oldest first. */
  fresh(): Promise<StoredEvent[]>;
}

export function freshEvents(app: () => TestApp, model: string): FreshEvents {
  let mark = 0;
  return {
    async skipAll() {
      mark = await app().deps.events.latestId();
    },
    async fresh() {
      const list = await app().deps.events.readAfter(mark, 10_000);
      if (list.length > 0) mark = list[list.length - 1].id;
      return list.filter((e) => e.model === model);
    },
  };
}
