/** Call operations (spec: Endpoints > Calls; decisions: Start one call). */
import { ok } from '../../core/http.js';
import { paginate } from '../../core/pagination.js';
import { pathId } from '../ids.js';
import { userRoute } from '../routing.js';
import { CallListQuery, MakeCallBody, serialiseCall } from './schema.js';
import { CALL_MESSAGES, deleteCall, findCall, listCalls, makeCall } from './service.js';

export const callRoutes = [
  userRoute({
    method: 'GET', path: '/user/calls', query: CallListQuery,
    handle: ({ ctx, query }) => ok(paginate(listCalls(ctx, query), query.page, query.per_page, serialiseCall)),
  }),
  userRoute({
    method: 'GET', path: '/user/calls/:id',
    handle: ({ ctx, params }) => ok(serialiseCall(findCall(ctx, pathId(params.id)))),
  }),
  userRoute({
    method: 'DELETE', path: '/user/calls/:call',
    handle: ({ ctx, params }) => (deleteCall(ctx, pathId(params.call)), ok({ message: CALL_MESSAGES.deleted })),
  }),
  userRoute({
    method: 'POST', path: '/user/make_call', body: MakeCallBody,
    handle: ({ ctx, body }) => {
      const call = makeCall(ctx, body);
      return ok({ message: CALL_MESSAGES.initiated, call_id: call.id, status: call.status });
    },
  }),
];
