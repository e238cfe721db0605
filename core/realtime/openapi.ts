/** GET /api/realtime and POST /api/realtime/ticket in /docs (merged by core/openapi/app-document.ts). */
import { OPENAPI_REFS, type OpenApiFragment } from '../plugin-api';

const R = OPENAPI_REFS.responses;

const STREAM_DESCRIPTION = `Server-Sent Events: the committed changes of the named models that the caller may read, as they happen.

Each event is \`id: <outbox id>\`, \`event: <type>\` (\`record.create\`, \`record.update\`, \`record.delete\`, \`record.recover\`, \`record.publish\`, \`record.unpublish\` (a draft-enabled model's stream needs \`findDrafts\` too), and \`user.create\` / \`user.delete\` on \`models=user\`), and one \`data:\` line of JSON: \`{ id, type, model, recordId, time, record }\`, \`record\` as FindOne answers it to this caller (private fields and fields outside its field list removed).

* **Auth**: \`Authorization: Bearer <access token or API token>\`, or (browsers' EventSource, which cannot send headers) \`?ticket=\` from \`POST /api/realtime/ticket\`. A JWT is never taken from the URL. Without either the caller is the public role.
* **Permissions at send time**: \`<model>.find\` is asked of the Authorizer for every event (re-read at most every 250 ms, cached by the identity plugin for 0.5 s): a revoked permission stops that model's events within a second. A session or token that ends while connected ends the stream with an \`event: error\` frame (\`{ error: { status: 401, … } }\`).
* **Filters**: \`filters[...]\` as on Find (same syntax, checks and messages), applied to every named model and judged on the version of the record the event carries: conditions on the record's own fields on that record; a filter through a relation (or json, or with a row-level rule) in SQL against the row only while it still is that version (an event whose record changed again since is passed over for the later one). A filter through a relation needs \`find\` on the model it reaches (403 naming it); into a draft-enabled model it reads its published entries, as Find does. A draft-enabled model's stream needs \`findDrafts\` besides \`find\` (its events carry drafts): 403 without.
* **Resume**: \`Last-Event-ID\` (EventSource sends it when it reconnects; or \`?lastEventId=\`) replays the events after it, at most \`REALTIME_RESUME_WINDOW\` (1000) events back; further back (or past what the outbox still keeps) answers 410: reload the data, then subscribe without it. An outbox pruned empty still knows the newest id it handed out (410 before it). An id past the newest event answers 400 (\`details.parameter: Last-Event-ID\`, \`latestEventId\`).
* **Heartbeat**: a \`: heartbeat\` comment every \`REALTIME_HEARTBEAT\` (15 s).
* **Slow clients**: more than \`REALTIME_QUEUE_MAX\` (1000) events, or \`REALTIME_QUEUE_MAX_BYTES\` (4 MiB) of their records, waiting for one connection end it (the connection is cut; reconnect with Last-Event-ID).
* **Limit**: \`REALTIME_MAX_CONNECTIONS\` (10) open streams per caller on one node; 429 beyond.`;

export function realtimeOpenApi(): OpenApiFragment {
  return {
    tags: [{ name: 'realtime', description: 'Live changes over Server-Sent Events (README: Realtime)' }],
    components: {
      schemas: {
        RealtimeTicket: {
          type: 'object',
          properties: {
            data: {
              type: 'object',
              properties: {
                ticket: { type: 'string', pattern: '^rt1\\.', description: 'Pass as `?ticket=` to GET /api/realtime; valid for REALTIME_TICKET_TTL (30 s), accepted by no other endpoint.' },
                expiresAt: { type: 'string', format: 'date-time' },
              },
              required: ['ticket', 'expiresAt'],
            },
          },
          required: ['data'],
        },
      },
    },
    paths: {
      '/api/realtime': {
        get: {
          operationId: 'realtimeStream',
          summary: 'Subscribe to live changes (Server-Sent Events)',
          description: STREAM_DESCRIPTION,
          tags: ['realtime'],
          security: [{ [OPENAPI_REFS.bearerAuth]: [] }, {}],
          parameters: [
            { name: 'models', in: 'query', required: true, description: 'Models to follow, comma-separated. An unknown or empty name (`a,,b`, a leading or trailing comma) answers 400 naming `models`.', schema: { type: 'string' }, example: 'fee-type,institute' },
            { name: 'filters', in: 'query', required: false, style: 'deepObject', explode: true, description: 'As on Find: `filters[feeType][$startsWith]=Tui`.', schema: { type: 'object' } },
            { name: 'ticket', in: 'query', required: false, description: 'A ticket from POST /api/realtime/ticket (instead of the Authorization header).', schema: { type: 'string' } },
            { name: 'lastEventId', in: 'query', required: false, description: 'Resume after this event id (the `Last-Event-ID` header wins).', schema: { type: 'string', pattern: '^\\d+$' } },
            { name: 'Last-Event-ID', in: 'header', required: false, description: 'Resume after this event id (EventSource sends it on reconnect).', schema: { type: 'string', pattern: '^\\d+$' } },
          ],
          responses: {
            '200': {
              description: 'The event stream (never ends by itself).',
              content: {
                'text/event-stream': {
                  schema: { type: 'string' },
                  example: ': connected\nretry: 2000\n\nid: 42\nevent: record.create\ndata: {"id":42,"type":"record.create","model":"fee-type","recordId":7,"time":"2026-11-24T12:00:00.000Z","record":{"id":7,"feeType":"Tuition"}}\n\n: heartbeat\n\n',
                },
              },
            },
            '400': { $ref: R.badRequest },
            '401': { $ref: R.unauthorized },
            '403': { $ref: R.forbidden },
            '410': { description: 'Last-Event-ID is further back than REALTIME_RESUME_WINDOW events: reload, then subscribe without it.', content: { 'application/json': { schema: { $ref: OPENAPI_REFS.errorSchema } } } },
            '429': { $ref: R.tooManyRequests },
            default: { $ref: R.error },
          },
        },
      },
      '/api/realtime/ticket': {
        post: {
          operationId: 'realtimeTicket',
          summary: 'A short-lived ticket to open a stream with EventSource',
          description: 'Seals the caller\'s bearer for GET /api/realtime?ticket=… (browsers\' EventSource cannot send headers; a JWT must not travel in a URL). Valid for REALTIME_TICKET_TTL (30 s), on any node sharing IAM_JWT_SECRET; the stream re-checks the credentials it stands for as it runs.',
          tags: ['realtime'],
          security: [{ [OPENAPI_REFS.bearerAuth]: [] }],
          responses: {
            '200': { description: 'The ticket.', content: { 'application/json': { schema: { $ref: '#/components/schemas/RealtimeTicket' } } } },
            '401': { $ref: R.unauthorized },
            default: { $ref: R.error },
          },
        },
      },
    },
  };
}
