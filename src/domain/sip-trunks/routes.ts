/**
 * SIP trunk operations (live-platform C.4). Deleting one is `DELETE /user/phone-numbers/{id}`
 * (phone-numbers/routes.ts): a `sip` number goes at once.
 */
import * as z from 'zod';
import { dataList, withMessage } from '../../core/answers.js';
import { ok } from '../../core/http.js';
import { pathId } from '../ids.js';
import { userRoute } from '../routing.js';
import { CreateSipTrunkBody, SIP_TRUNK_MESSAGES, SipTrunkRecord, UpdateSipTrunkBody, serialiseSipTrunk } from './schema.js';
import { createSipTrunk, findSipTrunk, listSipTrunks, updateSipTrunk } from './service.js';

export const sipTrunkRoutes = [
  userRoute({
    method: 'GET', path: '/user/phone-numbers/sip-trunks', responses: () => ({ 200: dataList(SipTrunkRecord) }),
    handle: ({ ctx }) => ok({ data: listSipTrunks(ctx).map((t) => serialiseSipTrunk(t, false)) }),
  }),
  userRoute({
    method: 'POST', path: '/user/phone-numbers/sip-trunks', body: CreateSipTrunkBody, responses: () => ({ 201: withMessage(SipTrunkRecord) }),
    handle: ({ ctx, body }) => ok({ message: SIP_TRUNK_MESSAGES.created, data: serialiseSipTrunk(createSipTrunk(ctx, body)) }, 201),
  }),
  userRoute({
    method: 'GET', path: '/user/phone-numbers/sip-trunks/:id', responses: () => ({ 200: z.object({ data: SipTrunkRecord }) }),
    handle: ({ ctx, params }) => ok({ data: serialiseSipTrunk(findSipTrunk(ctx, pathId(params.id))) }),
  }),
  userRoute({
    method: 'PUT', path: '/user/phone-numbers/sip-trunks/:id', body: UpdateSipTrunkBody, responses: () => ({ 200: withMessage(SipTrunkRecord) }),
    handle: ({ ctx, body, params }) => ok({ message: SIP_TRUNK_MESSAGES.updated, data: serialiseSipTrunk(updateSipTrunk(ctx, pathId(params.id), body)) }),
  }),
];
