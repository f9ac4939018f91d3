/**
 * SIP trunk operations (live-platform C.4). Deleting one is `DELETE /user/phone-numbers/{id}`
 * (phone-numbers/routes.ts): a `sip` number goes at once.
 */
import { ok } from '../../core/http.js';
import { pathId } from '../ids.js';
import { userRoute } from '../routing.js';
import { CreateSipTrunkBody, UpdateSipTrunkBody, serialiseSipTrunk } from './schema.js';
import { SIP_TRUNK_MESSAGES, createSipTrunk, findSipTrunk, listSipTrunks, updateSipTrunk } from './service.js';

export const sipTrunkRoutes = [
  userRoute({
    method: 'GET', path: '/user/phone-numbers/sip-trunks',
    handle: ({ ctx }) => ok({ data: listSipTrunks(ctx).map((t) => serialiseSipTrunk(t.number, t.sip, false)) }),
  }),
  userRoute({
    method: 'POST', path: '/user/phone-numbers/sip-trunks', body: CreateSipTrunkBody,
    handle: ({ ctx, body }) => {
      const trunk = createSipTrunk(ctx, body);
      return ok({ message: SIP_TRUNK_MESSAGES.created, data: serialiseSipTrunk(trunk.number, trunk.sip) }, 201);
    },
  }),
  userRoute({
    method: 'GET', path: '/user/phone-numbers/sip-trunks/:id',
    handle: ({ ctx, params }) => {
      const trunk = findSipTrunk(ctx, pathId(params.id));
      return ok({ data: serialiseSipTrunk(trunk.number, trunk.sip) });
    },
  }),
  userRoute({
    method: 'PUT', path: '/user/phone-numbers/sip-trunks/:id', body: UpdateSipTrunkBody,
    handle: ({ ctx, body, params }) => {
      const trunk = updateSipTrunk(ctx, pathId(params.id), body);
      return ok({ message: SIP_TRUNK_MESSAGES.updated, data: serialiseSipTrunk(trunk.number, trunk.sip) });
    },
  }),
];
