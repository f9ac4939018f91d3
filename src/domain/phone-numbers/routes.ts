/** Phone number operations (spec: Endpoints > Phone numbers). */
import { ok } from '../../core/http.js';
import { pathId } from '../ids.js';
import { userRoute } from '../routing.js';
import { PurchaseBody, SearchQuery, UpdateNumberBody, readSearchQuery, serialiseNicknamed, serialiseOffer, serialisePhoneNumber, serialisePurchased } from './schema.js';
import { PHONE_MESSAGES, listNumbers, listSmsNumbers, purchaseNumber, releaseNumber, renameNumber, searchNumbers } from './service.js';

export const phoneNumberRoutes = [
  userRoute({
    // live-platform E: the query's countries and default depend on the wire, so it is read per request.
    method: 'GET', path: '/user/phone-numbers/search', doc: { query: SearchQuery },
    handle: ({ ctx, request }) => ok({ data: searchNumbers(ctx, readSearchQuery(ctx.wire, request.query)).map((o) => serialiseOffer(o, ctx.wire)) }),
  }),
  userRoute({
    method: 'POST', path: '/user/phone-numbers/purchase', body: PurchaseBody,
    handle: ({ ctx, body }) => ok({ message: PHONE_MESSAGES.purchased, data: serialisePurchased(purchaseNumber(ctx, body.phone_number)) }, 201),
  }),
  userRoute({
    method: 'GET', path: '/user/phone-numbers/all',
    handle: ({ ctx }) => ok({ data: listNumbers(ctx).map((n) => serialisePhoneNumber(n, ctx.wire)) }),
  }),
  userRoute({
    method: 'DELETE', path: '/user/phone-numbers/:id',
    handle: ({ ctx, params }) => ok({ message: releaseNumber(ctx, pathId(params.id)) }),
  }),
  // live-platform B: the nickname and the legacy list.
  userRoute({
    method: 'PUT', path: '/user/phone-numbers/:id', body: UpdateNumberBody,
    handle: ({ ctx, body, params }) => ok({ message: PHONE_MESSAGES.updated, data: serialiseNicknamed(renameNumber(ctx, pathId(params.id), body.nickname)) }),
  }),
  userRoute({
    method: 'GET', path: '/user/phone-numbers',
    handle: ({ ctx }) => ok({ data: listSmsNumbers(ctx).map((n) => serialisePhoneNumber(n, ctx.wire)) }),
  }),
];
