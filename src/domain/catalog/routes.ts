/** Catalog operations (decisions: Routes the specification names without a path). */
import { ok } from '../../core/http.js';
import { pathId } from '../ids.js';
import { userRoute } from '../routing.js';
import {
  EligibleNumbersQuery,
  ModelsQuery,
  ProvidersQuery,
  VoicesQuery,
  serialiseEligibleNumber,
  serialiseKnowledgebase,
  serialiseLanguage,
  serialiseModel,
  serialiseProvider,
  serialiseTool,
  serialiseVoice,
} from './schema.js';
import { findKnowledgebase, findTool, knowledgebaseUsage, listEligibleNumbers, listKnowledgebases, listModels, listProviders, listTools, listVoices } from './service.js';

export const catalogRoutes = [
  userRoute({
    method: 'GET', path: '/user/assistants/voices', query: VoicesQuery,
    handle: ({ ctx, query }) => ok(listVoices(ctx, query).map(serialiseVoice)),
  }),
  userRoute({
    method: 'GET', path: '/user/assistants/languages',
    handle: ({ ctx }) => ok(ctx.catalog.languages.map(serialiseLanguage)),
  }),
  userRoute({
    method: 'GET', path: '/user/assistants/models', query: ModelsQuery,
    handle: ({ ctx, query }) => ok(listModels(ctx, query.type).map(serialiseModel)),
  }),
  userRoute({
    method: 'GET', path: '/user/assistants/synthesizer-providers', query: ProvidersQuery,
    handle: ({ ctx, query }) => ok(listProviders(ctx.catalog.synthesizerProviders, query.language_id).map(serialiseProvider)),
  }),
  userRoute({
    method: 'GET', path: '/user/assistants/transcriber-providers', query: ProvidersQuery,
    handle: ({ ctx, query }) => ok(listProviders(ctx.catalog.transcriberProviders, query.language_id).map(serialiseProvider)),
  }),
  userRoute({
    method: 'GET', path: '/user/assistants/phone-numbers', query: EligibleNumbersQuery,
    handle: ({ ctx, query }) =>
      ok(listEligibleNumbers(ctx, query.type).map((n) => serialiseEligibleNumber(n, ctx.wire))),
  }),
  userRoute({
    method: 'GET', path: '/user/knowledgebases',
    handle: ({ ctx }) => ok({ data: listKnowledgebases(ctx).map((kb) => serialiseKnowledgebase(kb, knowledgebaseUsage(ctx, kb), ctx.wire)) }),
  }),
  userRoute({
    method: 'GET', path: '/user/knowledgebases/:id',
    handle: ({ ctx, params }) => {
      const kb = findKnowledgebase(ctx, pathId(params.id));
      return ok({ data: serialiseKnowledgebase(kb, knowledgebaseUsage(ctx, kb), ctx.wire) });
    },
  }),
  userRoute({
    method: 'GET', path: '/user/tools',
    handle: ({ ctx }) => ok(listTools(ctx).map(serialiseTool)),
  }),
  userRoute({
    method: 'GET', path: '/user/tools/:id',
    handle: ({ ctx, params }) => ok(serialiseTool(findTool(ctx, pathId(params.id)))),
  }),
];
