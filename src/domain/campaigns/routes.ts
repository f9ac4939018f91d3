/** Campaign operations (spec: Endpoints > Campaigns; decisions: List campaigns, Delete campaign). */
import * as z from 'zod';
import { MessageAnswer, withMessage } from '../../core/answers.js';
import { alias, ok } from '../../core/http.js';
import { say } from '../../core/wire.js';
import { pathId } from '../ids.js';
import { userRoute } from '../routing.js';
import { CampaignRecord, CampaignStatusChangeRecord, CreateCampaignBody, UpdateStatusBody, serialiseCampaign, serialiseStatusChange } from './schema.js';
import { CAMPAIGN_MESSAGES, createCampaign, deleteCampaign, listCampaigns, startCampaign, stopCampaign } from './service.js';

const create = userRoute({
  method: 'POST', path: '/user/campaign', body: CreateCampaignBody, responses: () => ({ 201: withMessage(CampaignRecord) }),
  handle: ({ ctx, body }) => ok({ message: say(ctx.wire, CAMPAIGN_MESSAGES.created), data: serialiseCampaign(createCampaign(ctx, body)) }, 201),
});

export const campaignRoutes = [
  create,
  // live-platform A: the plural spelling of create.
  alias(create, 'POST', '/user/campaigns'),
  userRoute({
    method: 'GET', path: '/user/campaigns', responses: () => ({ 200: z.array(CampaignRecord) }),
    handle: ({ ctx }) => ok(listCampaigns(ctx).map(serialiseCampaign)),
  }),
  userRoute({
    method: 'DELETE', path: '/user/campaign/:id', responses: () => ({ 200: MessageAnswer }),
    handle: ({ ctx, params }) => (deleteCampaign(ctx, pathId(params.id)), ok({ message: say(ctx.wire, CAMPAIGN_MESSAGES.deleted) })),
  }),
  userRoute({
    method: 'POST', path: '/user/campaigns/update-status', body: UpdateStatusBody, responses: () => ({ 200: CampaignStatusChangeRecord }),
    handle: ({ ctx, body }) =>
      ok(body.action === 'start'
        ? serialiseStatusChange(CAMPAIGN_MESSAGES.started, startCampaign(ctx, body.campaign_id))
        : serialiseStatusChange(CAMPAIGN_MESSAGES.stopped, stopCampaign(ctx, body.campaign_id))),
  }),
];
