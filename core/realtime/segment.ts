/** The realtime routes live under `/api/realtime` (routes.ts); no model may take the name (core/api-segments.ts). */
export const REALTIME_SEGMENT = 'realtime';
