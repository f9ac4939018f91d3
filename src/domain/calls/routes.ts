/** Call operations (spec: Endpoints > Calls; decisions: Start one call). */
import { ok, selfPath } from '../../core/http.js';
import { pageOf } from '../../core/pagination.js';
import { say } from '../../core/wire.js';
import { pathId } from '../ids.js';
import { userRoute } from '../routing.js';
import { CallListQuery, MakeCallBody } from './schema.js';
import { CALL_MESSAGES, callView, deleteCall, findCall, listCalls, makeCall } from './service.js';

export const callRoutes = [
  userRoute({
    method: 'GET', path: '/user/calls', query: CallListQuery,
    handle: ({ ctx, query, request }) => ok(pageOf(listCalls(ctx, query), query.page, query.per_page, callView(ctx), { wire: ctx.wire, path: selfPath(request) })),
  }),
  userRoute({
    method: 'GET', path: '/user/calls/:id',
    handle: ({ ctx, params }) => ok(callView(ctx)(findCall(ctx, pathId(params.id)))),
  }),
  userRoute({
    method: 'DELETE', path: '/user/calls/:call',
    handle: ({ ctx, params }) => (deleteCall(ctx, pathId(params.call)), ok({ message: say(ctx.wire, CALL_MESSAGES.deleted) })),
  }),
  userRoute({
    method: 'POST', path: '/user/make_call', body: MakeCallBody,
    handle: ({ ctx, body }) => {
      const call = makeCall(ctx, body);
      return ok({ message: say(ctx.wire, CALL_MESSAGES.initiated), call_id: call.id, status: call.status });
    },
  }),
];
