/**
 * A call's recording (live-platform H.7; decisions: Recording): the record keeps a mark
 * that the simulator recorded it, and every answer and webhook shows, in its place, the
 * link the simulator serves the recording at (a valid MP3 of the call's length, public,
 * gone with the call). A URL given with the record (`POST /__sim/calls`) is shown as given.
 */
import type { FileSpace } from '../../core/files.js';
import { fileUrl } from '../files/links.js';

/** The file name of every recording's link. */
export const RECORDING_FILENAME = 'recording.mp3';

/**
 * The mark a call record keeps for a recording the simulator made: the URL earlier
 * versions showed, kept as the stored form so their snapshots and state files read the
 * same. Never shown: answers show `recordingLink`.
 * @example recordingUrl(7) // 'https://recordings.voxsim.test/calls/7.mp3'
 */
export function recordingUrl(id: number): string {
  return `https://recordings.voxsim.test/calls/${id}.mp3`;
}

/**
 * The `recording_url` a call shows: the simulator's own link for a recording it made,
 * a URL given with the record as it is, null without one.
 * @example recordingLink(sim.files, call) // 'http://127.0.0.1:4010/api/files/sim/rec-7-<32 hex>/recording.mp3'
 */
export function recordingLink(files: FileSpace, call: { readonly id: number; readonly recording_url: string | null }): string | null {
  const stored = call.recording_url;
  return stored !== null && stored === recordingUrl(call.id) ? fileUrl(files, 'rec', call.id, RECORDING_FILENAME) : stored;
}
