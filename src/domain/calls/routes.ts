/** Call operations (spec: Endpoints > Calls; decisions: Start one call). */
import * as z from 'zod';
import { MessageAnswer, integer, perWire } from '../../core/answers.js';
import { ok, selfPath } from '../../core/http.js';
import { JsonText } from '../../core/json.js';
import { laravelPageSchema, pageOf, pageSchema, pageText } from '../../core/pagination.js';
import { say } from '../../core/wire.js';
import { pathId } from '../ids.js';
import { userRoute } from '../routing.js';
import { CALL_STATUSES, CallListQuery, CallRecord, LiveCallRecord, MakeCallBody } from './schema.js';
import { CALL_MESSAGES, callText, callView, deleteCall, findCall, listCalls, makeCall } from './service.js';

export const callRoutes = [
  userRoute({
    method: 'GET', path: '/user/calls', query: CallListQuery, responses: () => ({ 200: perWire(pageSchema(CallRecord), laravelPageSchema(LiveCallRecord)) }),
    handle: ({ ctx, query, request }) => {
      const cut = listCalls(ctx, query);
      const on = { wire: ctx.wire, path: selfPath(request) };
      // An adapter sends the answer as text: each call's is kept until the call changes (callText).
      return ok(request.encoded ? pageText(cut, query.page, query.per_page, callText(ctx), on) : pageOf(cut, query.page, query.per_page, callView(ctx), on));
    },
  }),
  userRoute({
    method: 'GET', path: '/user/calls/:id', responses: () => ({ 200: perWire(CallRecord, LiveCallRecord) }),
    handle: ({ ctx, params, request }) => {
      const call = findCall(ctx, pathId(params.id));
      return ok(request.encoded ? new JsonText(callText(ctx)(call)) : callView(ctx)(call));
    },
  }),
  userRoute({
    // The specification names this id `{call}`; it is `:id` here because OpenAPI 3.1 forbids two templates of one path that differ only in a parameter's name.
    method: 'DELETE', path: '/user/calls/:id', responses: () => ({ 200: MessageAnswer }),
    handle: ({ ctx, params }) => (deleteCall(ctx, pathId(params.id)), ok({ message: say(ctx.wire, CALL_MESSAGES.deleted) })),
  }),
  userRoute({
    method: 'POST', path: '/user/make_call', body: MakeCallBody,
    responses: () => ({ 200: z.object({ message: z.string(), call_id: integer(), status: z.enum(CALL_STATUSES) }) }),
    handle: ({ ctx, body }) => {
      const call = makeCall(ctx, body);
      return ok({ message: say(ctx.wire, CALL_MESSAGES.initiated), call_id: call.id, status: call.status });
    },
  }),
];
