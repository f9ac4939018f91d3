/** The clock events of knowledge bases: the end of a document's processing (live-platform C.1 Lifecycle). */
import { id } from '../../core/fields.js';
import { onClock, type ClockHandler } from '../routing.js';
import { DOCUMENT_PROCESSED_EVENT, finishProcessing, type DocumentProcessedPayload } from './service.js';

export const knowledgebaseEvents: readonly ClockHandler[] = [onClock<DocumentProcessedPayload>(DOCUMENT_PROCESSED_EVENT, { account_id: id, document_id: id }, finishProcessing)];
