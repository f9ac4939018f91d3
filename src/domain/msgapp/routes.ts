/** Messaging channel operations (spec: Messaging-application channel; decisions: senders, templates, session status). */
import { dataList, perWire } from '../../core/answers.js';
import { alias, ok, type RouteDef } from '../../core/http.js';
import { pathId } from '../ids.js';
import { userRoute, type RouteCtx } from '../routing.js';
import {
  FreeformSentAnswer,
  LiveSenderRecord,
  SendFreeformBody,
  SendTemplateBody,
  SenderRecord,
  SendersQuery,
  SessionStatusAnswer,
  SessionStatusQuery,
  TemplateRecord,
  TemplateSentAnswer,
  TemplatesQuery,
  serialiseSender,
  serialiseTemplate,
} from './schema.js';
import { getSessionStatus, listSenders, listTemplates, sendFreeform, sendTemplate } from './service.js';

const operations = [
  userRoute({
    method: 'GET', path: '/user/msgapp/senders', query: SendersQuery, responses: () => ({ 200: perWire(dataList(SenderRecord), dataList(LiveSenderRecord)) }),
    handle: ({ ctx, query }) => ok({ data: listSenders(ctx, query.status).map((s) => serialiseSender(s, ctx.wire)) }),
  }),
  userRoute({
    method: 'GET', path: '/user/msgapp/senders/:id/templates', family: 'messaging', query: TemplatesQuery, responses: () => ({ 200: dataList(TemplateRecord) }),
    handle: ({ ctx, params, query }) => ok({ data: listTemplates(ctx, pathId(params.id), query.status).map((t) => serialiseTemplate(t, ctx.wire)) }),
  }),
  userRoute({
    method: 'GET', path: '/user/msgapp/session-status', family: 'messaging', query: SessionStatusQuery, responses: () => ({ 200: SessionStatusAnswer }),
    handle: ({ ctx, query }) => ok(getSessionStatus(ctx, query.sender_id, query.recipient_phone)),
  }),
  userRoute({
    method: 'POST', path: '/user/msgapp/send', family: 'messaging', body: SendTemplateBody, responses: () => ({ 200: TemplateSentAnswer }),
    handle: ({ ctx, body }) => ok(sendTemplate(ctx, body)),
  }),
  userRoute({
    method: 'POST', path: '/user/msgapp/send-freeform', family: 'messaging', body: SendFreeformBody, responses: () => ({ 200: FreeformSentAnswer }),
    handle: ({ ctx, body }) => ok(sendFreeform(ctx, body)),
  }),
];

/** live-platform Rule 4: every `msgapp` path is also served with the live word `whatsapp`, as one operation. */
export const msgappRoutes: RouteDef<RouteCtx>[] = operations.flatMap((route) => [route, alias(route, route.method, route.path.replace('/msgapp/', '/whatsapp/'))]);
