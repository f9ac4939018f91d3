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

export type { FileSpace };
import type { MediaType } from '../msgapp/schema.js';

/** Where a simulator is reached before anything says otherwise: the server's default address. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:4010/api';
/** The path every file link starts with, under the base URL. */
export const FILES_PREFIX = '/files/';

/** The scope of a sandbox's files: a digest of its key, which names it without giving the key away. */
export function sandboxFileScope(sandboxKey: string): string {
  return sha256Hex(`files|${sandboxKey}`).slice(0, 20);
}

/** The kinds of file, by the letters their links carry. */
const KINDS = { att: 'attachment', rec: 'recording' } as const;
type FileKind = keyof typeof KINDS;

function token(space: FileSpace, kind: FileKind, id: number): string {
  return sha256Hex(`${space.secret()}|${kind}|${id}`).slice(0, 32);
}

/**
 * The public link of a file.
 * @example fileUrl(sim.files, 'att', 12, 'photo.png') // 'http://127.0.0.1:4010/api/files/sim/att-12-<32 hex>/photo.png'
 */
export function fileUrl(files: FileSpace, kind: FileKind, id: number, filename: string): string {
  return `${files.baseUrl.replace(/\/+$/, '')}${FILES_PREFIX}${files.scope}/${kind}-${id}-${token(files, kind, id)}/${encodeURIComponent(filename)}`;
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
  if (match[3] !== token(state.files, kind, id)) throw shapeA(404, FILE_MESSAGES.notFound);
  if (kind === 'att') {
    const media = state.db.messages.get(id)?.media;
    if (!media) throw shapeA(404, FILE_MESSAGES.notFound);
    const file = media.voice_note ? ATTACHMENT_FILES.audio : ATTACHMENT_FILES[media.type];
    return fileAnswer(request, file.make(media.filename), file.type, media.filename);
  }
  // A recording: the call's, while it is kept and was recorded; as long as the call (live-platform H.7).
  const call = state.db.calls.get(id);
  if (!call || call.recording_url === null) throw shapeA(404, FILE_MESSAGES.notFound);
  return fileAnswer(request, mp3File(call.duration), 'audio/mpeg', params.name);
}
