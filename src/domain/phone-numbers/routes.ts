/** Phone number operations (spec: Endpoints > Phone numbers). */
import { MessageAnswer, dataList, perWire, withMessage } from '../../core/answers.js';
import { ok } from '../../core/http.js';
import { pathId } from '../ids.js';
import { userRoute } from '../routing.js';
import {
  LivePhoneNumberRecord,
  NicknamedNumberRecord,
  NumberOfferRecord,
  PhoneNumberRecord,
  PurchasedNumberRecord,
  PurchaseBody,
  SearchQueryDoc,
  UpdateNumberBody,
  readSearchQuery,
  serialiseNicknamed,
  serialiseOffer,
  serialisePhoneNumber,
  serialisePurchased,
} from './schema.js';
import { PHONE_MESSAGES, listNumbers, listSmsNumbers, purchaseNumber, releaseNumber, renameNumber, searchNumbers } from './service.js';
import { lazySchema } from '../../core/lazy-schema.js';

/** The account's numbers in the wire's record. */
const NumberList = lazySchema(() => perWire(dataList(PhoneNumberRecord), dataList(LivePhoneNumberRecord)));

export const phoneNumberRoutes = [
  userRoute({
    // live-platform E: the query's countries and default depend on the wire, so it is read per request.
    method: 'GET', path: '/user/phone-numbers/search', doc: { query: SearchQueryDoc }, responses: () => ({ 200: dataList(NumberOfferRecord) }),
    handle: ({ ctx, request }) => ok({ data: searchNumbers(ctx, readSearchQuery(ctx.wire, request.query)).map((o) => serialiseOffer(o, ctx.wire)) }),
  }),
  userRoute({
    method: 'POST', path: '/user/phone-numbers/purchase', body: PurchaseBody, responses: () => ({ 201: withMessage(PurchasedNumberRecord) }),
    handle: ({ ctx, body }) => ok({ message: PHONE_MESSAGES.purchased, data: serialisePurchased(purchaseNumber(ctx, body.phone_number)) }, 201),
  }),
  userRoute({
    method: 'GET', path: '/user/phone-numbers/all', responses: () => ({ 200: NumberList }),
    handle: ({ ctx }) => ok({ data: listNumbers(ctx).map((n) => serialisePhoneNumber(n, ctx.wire)) }),
  }),
  userRoute({
    method: 'DELETE', path: '/user/phone-numbers/:id', responses: () => ({ 200: MessageAnswer }),
    handle: ({ ctx, params }) => ok({ message: releaseNumber(ctx, pathId(params.id)) }),
  }),
  // live-platform B: the nickname and the legacy list.
  userRoute({
    method: 'PUT', path: '/user/phone-numbers/:id', body: UpdateNumberBody, responses: () => ({ 200: withMessage(NicknamedNumberRecord) }),
    handle: ({ ctx, body, params }) => ok({ message: PHONE_MESSAGES.updated, data: serialiseNicknamed(renameNumber(ctx, pathId(params.id), body.nickname)) }),
  }),
  userRoute({
    method: 'GET', path: '/user/phone-numbers', responses: () => ({ 200: NumberList }),
    handle: ({ ctx }) => ok({ data: listSmsNumbers(ctx).map((n) => serialisePhoneNumber(n, ctx.wire)) }),
  }),
];
