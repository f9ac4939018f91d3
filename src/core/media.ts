/**
 * Small valid files of each type the platform lets one download (live-platform H.7): an
 * image (PNG), a video (MP4), audio (MP3 of a given length) and a document (PDF). Made
 * from nothing but their length, so a file is generated on request from its record and
 * stored nowhere.
 */

/** A 1x1 transparent PNG (signature, IHDR, IDAT, IEND with their CRCs). */
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/**
 * A 1x1 PNG.
 * @example pngFile().subarray(1, 4) // 'PNG' in ASCII
 */
export function pngFile(): Uint8Array {
  return Uint8Array.from(Buffer.from(PNG_BASE64, 'base64'));
}

/** A box of the ISO base media format: its size, its type, its content. */
function box(type: string, ...parts: Uint8Array[]): Uint8Array {
  const size = 8 + parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(size);
  new DataView(out.buffer).setUint32(0, size);
  out.set(new TextEncoder().encode(type), 4);
  let at = 8;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * An MP4 of `seconds` with no track: `ftyp` (isom) and a `moov` holding its `mvhd`.
 * @example mp4File(3).subarray(4, 8) // 'ftyp' in ASCII
 */
export function mp4File(seconds = 1): Uint8Array {
  const ftyp = new TextEncoder().encode('isom\u0000\u0000\u0002\u0000isomiso2mp41');
  const mvhd = new Uint8Array(100);
  const view = new DataView(mvhd.buffer);
  view.setUint32(12, 1_000); // timescale: milliseconds
  view.setUint32(16, Math.round(seconds * 1_000)); // duration
  view.setUint32(20, 0x00010000); // rate 1.0
  view.setUint16(24, 0x0100); // volume 1.0
  // The unity matrix (a, d: 1.0 in 16.16; w: 1.0 in 2.30).
  view.setUint32(36, 0x00010000);
  view.setUint32(52, 0x00010000);
  view.setUint32(68, 0x40000000);
  view.setUint32(96, 1); // next track id
  return Uint8Array.from([...box('ftyp', ftyp), ...box('moov', box('mvhd', mvhd))]);
}

/**
 * MPEG-1 Layer III, 32 kbit/s, 48 kHz, mono, no CRC: a frame is exactly 96 bytes and
 * 24 ms (1152 samples), so the length a reader works out from the size and the bit rate
 * is the length asked for. Side information and main data all zero: silence.
 */
const MP3_HEADER = [0xff, 0xfb, 0x14, 0xc0];
export const MP3_FRAME_BYTES = 96;
export const MP3_FRAME_MS = 24;

/**
 * A silent MP3 of `seconds` (at least one frame), its length within one frame (24 ms).
 * @example mp3File(60).length // 240000 (2500 frames of 96 bytes)
 */
export function mp3File(seconds: number): Uint8Array {
  const frames = Math.max(1, Math.round((Math.max(0, seconds) * 1_000) / MP3_FRAME_MS));
  const out = new Uint8Array(frames * MP3_FRAME_BYTES);
  for (let i = 0; i < frames; i++) out.set(MP3_HEADER, i * MP3_FRAME_BYTES);
  return out;
}

/**
 * A one-page PDF naming `title`, with a correct cross-reference table.
 * @example new TextDecoder().decode(pdfFile('x').subarray(0, 8)) // '%PDF-1.4'
 */
export function pdfFile(title = 'Document'): Uint8Array {
  const safe = title.replace(/[()\\]/g, '').replace(/[^\x20-\x7e]/g, '?').slice(0, 80);
  const stream = `BT /F1 12 Tf 20 100 Td (${safe}) Tj ET`;
  const objects = [
    '<</Type/Catalog/Pages 2 0 R>>',
    '<</Type/Pages/Kids[3 0 R]/Count 1>>',
    '<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>',
    `<</Length ${stream.length}>>\nstream\n${stream}\nendstream`,
    '<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>',
  ];
  let text = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(text.length);
    text += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = text.length;
  text += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  text += `trailer\n<</Size ${objects.length + 1}/Root 1 0 R>>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(text);
}
