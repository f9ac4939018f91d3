/**
 * The length of an MP3 from its MPEG audio frame headers, as an audio player works it out:
 * each frame's header names its version, layer, bit rate, sample rate and padding, which
 * give its size and its samples. A stand-in for an audio metadata parser (music-metadata)
 * that reads the file frame by frame and fails on anything that is not a frame.
 */

/** Bit rates in kbit/s of MPEG-1 Layer III by the header's index (0 free, 15 bad). */
const BITRATES_V1_L3 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
/** Sample rates of MPEG-1 by the header's index. */
const SAMPLE_RATES_V1 = [44_100, 48_000, 32_000];

export interface Mp3Facts {
  frames: number;
  seconds: number;
  bitrate: number;
  sampleRate: number;
  channels: number;
}

/**
 * Reads every frame of an MPEG-1 Layer III stream (no ID3 tag); throws at a byte that does not start a valid frame.
 * @example mp3Facts(bytes).seconds // 60
 */
export function mp3Facts(bytes: Uint8Array): Mp3Facts {
  let at = 0;
  let frames = 0;
  let samples = 0;
  let bitrate = 0;
  let sampleRate = 0;
  let channels = 0;
  while (at < bytes.length) {
    if (at + 4 > bytes.length) throw new Error(`a cut frame header at byte ${at}`);
    const [b0, b1, b2, b3] = [bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!];
    if (b0 !== 0xff || (b1 & 0xe0) !== 0xe0) throw new Error(`no frame sync at byte ${at}`);
    const version = (b1 >> 3) & 0b11;
    const layer = (b1 >> 1) & 0b11;
    if (version !== 0b11 || layer !== 0b01) throw new Error(`not MPEG-1 Layer III at byte ${at}`);
    const kbps = BITRATES_V1_L3[b2 >> 4];
    const rate = SAMPLE_RATES_V1[(b2 >> 2) & 0b11];
    if (!kbps || !rate) throw new Error(`a bad bit rate or sample rate at byte ${at}`);
    const padding = (b2 >> 1) & 1;
    const size = Math.floor((144 * kbps * 1000) / rate) + padding;
    if (at + size > bytes.length) throw new Error(`a cut frame at byte ${at}`);
    frames++;
    samples += 1152;
    bitrate = kbps * 1000;
    sampleRate = rate;
    channels = b3 >> 6 === 0b11 ? 1 : 2;
    at += size;
  }
  return { frames, seconds: sampleRate === 0 ? 0 : samples / sampleRate, bitrate, sampleRate, channels };
}
