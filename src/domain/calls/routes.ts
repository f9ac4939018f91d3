/** Call operations (spec: Endpoints > Calls; decisions: Start one call). */
import { z } from 'zod';
import { MessageAnswer, integer, perWire } from '../../core/answers.js';
import { ok, selfPath } from '../../core/http.js';
import { laravelPageSchema, pageOf, pageSchema } from '../../core/pagination.js';
import { say } from '../../core/wire.js';
import { pathId } from '../ids.js';
import { userRoute } from '../routing.js';
import { CALL_STATUSES, CallListQuery, CallRecord, LiveCallRecord, MakeCallBody } from './schema.js';
import { CALL_MESSAGES, callView, deleteCall, findCall, listCalls, makeCall } from './service.js';

export const callRoutes = [
  userRoute({
    method: 'GET', path: '/user/calls', query: CallListQuery, responses: { 200: perWire(pageSchema(CallRecord), laravelPageSchema(LiveCallRecord)) },
    handle: ({ ctx, query, request }) => ok(pageOf(listCalls(ctx, query), query.page, query.per_page, callView(ctx), { wire: ctx.wire, path: selfPath(request) })),
  }),
  userRoute({
    method: 'GET', path: '/user/calls/:id', responses: { 200: perWire(CallRecord, LiveCallRecord) },
    handle: ({ ctx, params }) => ok(callView(ctx)(findCall(ctx, pathId(params.id)))),
  }),
  userRoute({
    // The specification names this id `{call}`; it is `:id` here because OpenAPI 3.1 forbids two templates of one path that differ only in a parameter's name.
    method: 'DELETE', path: '/user/calls/:id', responses: { 200: MessageAnswer },
    handle: ({ ctx, params }) => (deleteCall(ctx, pathId(params.id)), ok({ message: say(ctx.wire, CALL_MESSAGES.deleted) })),
  }),
  userRoute({
    method: 'POST', path: '/user/make_call', body: MakeCallBody,
    responses: { 200: z.object({ message: z.string(), call_id: integer(), status: z.enum(CALL_STATUSES) }) },
    handle: ({ ctx, body }) => {
      const call = makeCall(ctx, body);
      return ok({ message: say(ctx.wire, CALL_MESSAGES.initiated), call_id: call.id, status: call.status });
    },
  }),
];
