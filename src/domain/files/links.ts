/**
 * The public links of the files the platform lets one download (live-platform H.7):
 * under the simulator's own base URL, on a public path whose unguessable part is derived
 * from the simulator's secret. Apart from the service that serves them (service.ts) so a
 * serialiser can name a link without loading the files it serves.
 */
import type { FileSpace } from '../../core/files.js';
import { sha256Hex } from '../../core/signing.js';

/** The path every file link starts with, under the base URL. */
export const FILES_PREFIX = '/files/';

/** The kinds of file, by the letters their links carry: attachments and recordings. */
export type FileKind = 'att' | 'rec';

/** The unguessable part of a link: a digest of the simulator's secret, the kind and the record's id. */
export function fileToken(space: FileSpace, kind: FileKind, id: number): string {
  return sha256Hex(`${space.secret()}|${kind}|${id}`).slice(0, 32);
}

/**
 * The public link of a file.
 * @example fileUrl(sim.files, 'att', 12, 'photo.png') // 'http://127.0.0.1:4010/api/files/sim/att-12-<32 hex>/photo.png'
 */
export function fileUrl(files: FileSpace, kind: FileKind, id: number, filename: string): string {
  return `${files.baseUrl.replace(/\/+$/, '')}${FILES_PREFIX}${files.scope}/${kind}-${id}-${fileToken(files, kind, id)}/${encodeURIComponent(filename)}`;
}
