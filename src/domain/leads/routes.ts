/** Lead operations (spec: Endpoints > Leads; decisions: Create lead, Delete lead). */
import { MessageAnswer, perWire, withMessage } from '../../core/answers.js';
import { alias, ok, selfPath } from '../../core/http.js';
import { laravelPageSchema, pageSchema, paginate } from '../../core/pagination.js';
import { say } from '../../core/wire.js';
import { pathId } from '../ids.js';
import { userRoute } from '../routing.js';
import { CreateLeadBody, LeadListQuery, LeadRecord, UpdateLeadBody, serialiseLead } from './schema.js';
import { LEAD_MESSAGES, contactsOf, createLead, deleteLead, listLeads, updateLead } from './service.js';
import type { AccountCtx } from '../context.js';
import type { Lead } from './schema.js';

/** A lead on the wire with its campaign and contacts. */
function leadView(ctx: AccountCtx) {
  return (lead: Lead) => serialiseLead(lead, ctx.campaigns.get(lead.campaign_id)!, contactsOf(ctx, lead));
}

const update = userRoute({
  method: 'PUT', path: '/user/leads/:id', body: UpdateLeadBody, responses: () => ({ 200: MessageAnswer }),
  handle: ({ ctx, body, params }) => (updateLead(ctx, pathId(params.id), body), ok({ message: say(ctx.wire, LEAD_MESSAGES.updated) })),
});

export const leadRoutes = [
  userRoute({
    method: 'POST', path: '/user/lead', body: CreateLeadBody, responses: () => ({ 200: withMessage(LeadRecord) }),
    handle: ({ ctx, body }) => ok({ message: say(ctx.wire, LEAD_MESSAGES.created), data: leadView(ctx)(createLead(ctx, body)) }),
  }),
  userRoute({
    method: 'GET', path: '/user/leads', query: LeadListQuery, responses: () => ({ 200: perWire(pageSchema(LeadRecord), laravelPageSchema(LeadRecord)) }),
    handle: ({ ctx, query, request }) => ok(paginate(listLeads(ctx, query), query.page, query.per_page, leadView(ctx), { wire: ctx.wire, path: selfPath(request) })),
  }),
  update,
  // live-platform A: the prefix-less PUT and the PATCH spelling, same partial semantics.
  alias(update, 'PUT', '/leads/:id'),
  alias(update, 'PATCH', '/user/leads/:id'),
  userRoute({
    method: 'DELETE', path: '/user/leads/:id', responses: () => ({ 200: MessageAnswer }),
    handle: ({ ctx, params }) => (deleteLead(ctx, pathId(params.id)), ok({ message: say(ctx.wire, LEAD_MESSAGES.deleted) })),
  }),
];
