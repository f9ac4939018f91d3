/**
 * The files the platform lets one download (live-platform H.7): attachments of customer
 * messages (H.6) and call recordings, all served from here, under the simulator's own
 * base URL, on a public path (the platform's media links need no key) with an unguessable
 * part. A file is made on request from its record (core/media.ts), so nothing is stored
 * twice, and it is gone (404) once its record is.
 */
import { shapeA } from '../../core/errors.js';
import { fileAnswer, type FileSpace } from '../../core/files.js';
import type { SimRequest, SimResponse } from '../../core/http.js';
import { mp3File, mp4File, pdfFile, pngFile } from '../../core/media.js';
import { sha256Hex } from '../../core/signing.js';
import type { SimState } from '../state.js';
import { recordingUrl } from '../calls/recording.js';
import { FILES_PREFIX, fileToken, fileUrl, type FileKind } from './links.js';

export { FILES_PREFIX, fileUrl };

export type { FileSpace };
import type { MediaType } from '../msgapp/schema.js';

/** Where a simulator is reached before anything says otherwise: the server's default address. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:4010/api';

/** The scope of a sandbox's files: a digest of its key, which names it without giving the key away. */
export function sandboxFileScope(sandboxKey: string): string {
  return sha256Hex(`files|${sandboxKey}`).slice(0, 20);
}

/** The media type and bytes of an attachment of each type (core/media.ts). */
const ATTACHMENT_FILES: Readonly<Record<MediaType, { type: string; make: (name: string) => Uint8Array }>> = {
  image: { type: 'image/png', make: () => pngFile() },
  video: { type: 'video/mp4', make: () => mp4File(1) },
  audio: { type: 'audio/mpeg', make: () => mp3File(1) },
  document: { type: 'application/pdf', make: (name) => pdfFile(name) },
};

/** The default file name of an attachment of each type (live-platform H.6, decision). */
export const DEFAULT_FILENAMES: Readonly<Record<MediaType, string>> = { image: 'image.png', video: 'video.mp4', audio: 'audio.mp3', document: 'document.pdf' };
/** A voice note is served as this MP3 (live-platform H.6). */
export const VOICE_NOTE_FILENAME = 'voice-note.mp3';

export const FILE_MESSAGES = { notFound: 'File not found.' } as const;

/**
 * Answers `GET /files/{scope}/{ref}/{name}`: the file when the link is one this simulator
 * made for a record it still holds, else 404 shape A (a foreign, altered or stale link alike).
 */
export function serveFile(state: SimState, request: SimRequest, params: { scope: string; ref: string; name: string }): SimResponse {
  const match = /^(att|rec)-([1-9]\d{0,15})-([0-9a-f]{32})$/.exec(params.ref);
  if (!match || params.scope !== state.files.scope) throw shapeA(404, FILE_MESSAGES.notFound);
  const kind = match[1] as FileKind;
  const id = Number(match[2]);
  if (match[3] !== fileToken(state.files, kind, id)) throw shapeA(404, FILE_MESSAGES.notFound);
  if (kind === 'att') {
    const media = state.db.messages.get(id)?.media;
    if (!media) throw shapeA(404, FILE_MESSAGES.notFound);
    const file = media.voice_note ? ATTACHMENT_FILES.audio : ATTACHMENT_FILES[media.type];
    return fileAnswer(request, file.make(media.filename), file.type, media.filename);
  }
  // A recording: the call's, while it is kept and was recorded by the simulator; as long as the call (live-platform H.7).
  const call = state.db.calls.get(id);
  if (!call || call.recording_url !== recordingUrl(id)) throw shapeA(404, FILE_MESSAGES.notFound);
  return fileAnswer(request, mp3File(call.duration), 'audio/mpeg', params.name);
}
