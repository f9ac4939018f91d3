/** Knowledge base and document operations (live-platform C.1). */
import * as z from 'zod';
import { MessageAnswer, dataList, perWire, withMessage } from '../../core/answers.js';
import { ok } from '../../core/http.js';
import { pathId } from '../ids.js';
import { userRoute } from '../routing.js';
import {
  DocumentRecord,
  KnowledgebaseRecord,
  LiveCreatedKnowledgebaseRecord,
  LiveKnowledgebaseRecord,
  LiveUpdatedKnowledgebaseRecord,
  CreateDocumentBody,
  CreateKnowledgebaseBody,
  UpdateDocumentBody,
  UpdateKnowledgebaseBody,
  serialiseDocument,
  serialiseKnowledgebase,
  serialiseWrittenKnowledgebase,
} from './schema.js';
import {
  KNOWLEDGEBASE_MESSAGES,
  createDocument,
  createKnowledgebase,
  deleteDocument,
  deleteKnowledgebase,
  findDocument,
  findKnowledgebase,
  listDocuments,
  listKnowledgebases,
  updateDocument,
  updateKnowledgebase,
  viewKnowledgebase,
} from './service.js';

const KB = '/user/knowledgebases/:knowledgebaseId';
const DOCUMENT = `${KB}/documents/:documentId`;

export const knowledgebaseRoutes = [
  userRoute({
    method: 'GET', path: '/user/knowledgebases', responses: () => ({ 200: dataList(perWire(KnowledgebaseRecord, LiveKnowledgebaseRecord)) }),
    handle: ({ ctx }) => ok({ data: listKnowledgebases(ctx).map((kb) => serialiseKnowledgebase(viewKnowledgebase(ctx, kb), ctx.wire)) }),
  }),
  userRoute({
    method: 'GET', path: '/user/knowledgebases/:id', responses: () => ({ 200: z.object({ data: perWire(KnowledgebaseRecord, LiveKnowledgebaseRecord) }) }),
    handle: ({ ctx, params }) => ok({ data: serialiseKnowledgebase(viewKnowledgebase(ctx, findKnowledgebase(ctx, pathId(params.id))), ctx.wire) }),
  }),
  userRoute({
    method: 'POST', path: '/user/knowledgebases', body: CreateKnowledgebaseBody, responses: () => ({ 201: withMessage(perWire(KnowledgebaseRecord, LiveCreatedKnowledgebaseRecord)) }),
    handle: ({ ctx, body }) =>
      ok({ message: KNOWLEDGEBASE_MESSAGES.created, data: serialiseWrittenKnowledgebase(viewKnowledgebase(ctx, createKnowledgebase(ctx, body)), ctx.wire, 'create') }, 201),
  }),
  userRoute({
    method: 'PUT', path: '/user/knowledgebases/:id', body: UpdateKnowledgebaseBody, responses: () => ({ 200: withMessage(perWire(KnowledgebaseRecord, LiveUpdatedKnowledgebaseRecord)) }),
    handle: ({ ctx, body, params }) =>
      ok({ message: KNOWLEDGEBASE_MESSAGES.updated, data: serialiseWrittenKnowledgebase(viewKnowledgebase(ctx, updateKnowledgebase(ctx, pathId(params.id), body)), ctx.wire, 'update') }),
  }),
  userRoute({
    method: 'DELETE', path: '/user/knowledgebases/:id', responses: () => ({ 200: MessageAnswer }),
    handle: ({ ctx, params }) => {
      deleteKnowledgebase(ctx, pathId(params.id));
      return ok({ message: KNOWLEDGEBASE_MESSAGES.deleted });
    },
  }),
  userRoute({
    method: 'GET', path: `${KB}/documents`, responses: () => ({ 200: dataList(DocumentRecord) }),
    handle: ({ ctx, params }) => ok({ data: listDocuments(ctx, pathId(params.knowledgebaseId)).map((d) => serialiseDocument(d)) }),
  }),
  userRoute({
    // live-platform C.1: a website by JSON, a file (pdf, txt, docx) by multipart/form-data.
    method: 'POST', path: `${KB}/documents`, body: CreateDocumentBody, multipart: true, responses: () => ({ 201: withMessage(DocumentRecord) }),
    handle: ({ ctx, body, params }) =>
      ok({ message: KNOWLEDGEBASE_MESSAGES.documentCreated, data: serialiseDocument(createDocument(ctx, pathId(params.knowledgebaseId), body), 'updated_at') }, 201),
  }),
  userRoute({
    method: 'GET', path: DOCUMENT, responses: () => ({ 200: z.object({ data: DocumentRecord }) }),
    handle: ({ ctx, params }) => ok({ data: serialiseDocument(findDocument(ctx, pathId(params.knowledgebaseId), pathId(params.documentId))) }),
  }),
  userRoute({
    method: 'PUT', path: DOCUMENT, body: UpdateDocumentBody, responses: () => ({ 200: withMessage(DocumentRecord) }),
    handle: ({ ctx, body, params }) =>
      ok({ message: KNOWLEDGEBASE_MESSAGES.documentUpdated, data: serialiseDocument(updateDocument(ctx, pathId(params.knowledgebaseId), pathId(params.documentId), body), 'created_at') }),
  }),
  userRoute({
    method: 'DELETE', path: DOCUMENT, responses: () => ({ 200: MessageAnswer }),
    handle: ({ ctx, params }) => {
      deleteDocument(ctx, pathId(params.knowledgebaseId), pathId(params.documentId));
      return ok({ message: KNOWLEDGEBASE_MESSAGES.documentDeleted });
    },
  }),
];
