/**
 * Seeded randomness: one generator per simulator, whose whole state is four integers,
 * so the same seed and the same requests draw the same values and a snapshot can
 * carry the generator's position.
 */
import type { Faker, Randomizer } from '@faker-js/faker';
import { lazyRequire, once } from './lazy.js';

export type RandomState = [number, number, number, number];

/** The largest seed (seeds are 0 to 2^31 - 1 everywhere: options, reset, scenarios, snapshots). */
export const MAX_SEED = 2 ** 31 - 1;

function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** sfc32: small, fast, and its state serialises as four numbers. */
class Sfc32 implements Randomizer {
  /** The four state words, kept unboxed (a draw allocates nothing). */
  private readonly words = new Uint32Array(4);

  get state(): RandomState {
    const [a, b, c, d] = this.words;
    return [a!, b!, c!, d!];
  }

  set state(state: RandomState) {
    this.words.set(state);
  }

  // faker calls next() and seed() detached from the object, so they are bound fields.
  seed = (seed: number | number[]): void => {
    const parts = Array.isArray(seed) ? seed : [seed];
    let mix = 0x6a09e667;
    for (const part of parts) mix = Math.imul(mix ^ (part >>> 0), 0x5bd1e995) ^ (part / 0x100000000);
    const gen = splitmix32(mix);
    this.state = [gen(), gen(), gen(), gen()];
    for (let i = 0; i < 12; i++) this.nextUint32();
  };

  nextUint32 = (): number => {
    const w = this.words;
    const a = w[0]!;
    const b = w[1]!;
    const c = w[2]!;
    const d = w[3]!;
    const t = (((a + b) >>> 0) + d) >>> 0;
    w[3] = d + 1;
    w[0] = b ^ (b >>> 9);
    w[1] = c + (c << 3);
    w[2] = (((c << 21) | (c >>> 11)) >>> 0) + t;
    return t;
  };

  next = (): number => this.nextUint32() / 0x100000000;

  constructor(seed: number | number[]) {
    this.seed(seed);
  }
}

/**
 * The generator the shared faker draws from, set by each read of `SeededRandom.faker`.
 * Faker draws synchronously, so between a read and its draws no other simulator can
 * move it; the faker itself holds no state of its own (its locale data is read-only).
 */
let drawing: Sfc32 | undefined;
const delegate: Randomizer = {
  next: () => drawing!.next(),
  seed: (seed) => drawing!.seed(seed),
};

/** faker's English entry (the package's root loads every locale, some 100 ms). */
const englishEntry = lazyRequire<typeof import('@faker-js/faker/locale/en')>('@faker-js/faker/locale/en');

/**
 * The shared faker, built on the first read, when the English entry is loaded, so
 * importing voxsim does not pay its 15 ms (issue 29). Faker's own class, from the English
 * entry's instance: its definitions are English over the base locale.
 */
const sharedFaker = once((): Faker => {
  const { faker: english } = englishEntry();
  return new (english.constructor as typeof Faker)({ locale: english.rawDefinitions, randomizer: delegate });
});

/**
 * The simulator's random source. Everything random (uuids, generated names, phone
 * numbers, transcripts) is drawn here, never from `Math.random()`.
 * @example
 * const random = new SeededRandom(7)
 * random.uuid() // the same value for every simulator seeded with 7
 */
export class SeededRandom {
  private readonly generator: Sfc32;

  constructor(readonly seed: number) {
    this.generator = new Sfc32(seed);
  }

  /**
   * A faker drawing from this generator. Read it where it is used, never keep it across
   * an `await`: one faker is shared by every simulator (building one costs more than a
   * whole simulator should), and each read points it at the reader's generator.
   */
  get faker(): Faker {
    drawing = this.generator;
    return sharedFaker();
  }

  /**
   * An independent generator for a purpose and its inputs (e.g. one number search),
   * so its values depend only on the seed and those inputs, not on what was drawn before.
   * @example SeededRandom.derive(7, 'search', 'US', '415').int(0, 9)
   */
  static derive(seed: number, ...labels: (string | number)[]): SeededRandom {
    let hash = 0x811c9dc5 ^ seed;
    for (const char of labels.join('\u0000')) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193);
    const derived = new SeededRandom(seed);
    derived.generator.seed([seed, hash >>> 0]);
    return derived;
  }

  /** A float in [0, 1). */
  next(): number {
    return this.generator.next();
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.generator.next() * (max - min + 1));
  }

  /** An RFC 4122 version-4 UUID. */
  uuid(): string {
    const words = [this.generator.nextUint32(), this.generator.nextUint32(), this.generator.nextUint32(), this.generator.nextUint32()];
    const hex = words.map((w) => w.toString(16).padStart(8, '0')).join('');
    const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  }

  get state(): RandomState {
    return this.generator.state;
  }

  set state(state: RandomState) {
    this.generator.state = state;
  }
}

/** A seed from the real clock, for a server started without `--seed`. */
export function randomSeed(): number {
  return Math.floor(Math.random() * 2 ** 31);
}

/**
 * `bytes` unguessable bytes as lowercase hex, for secrets the server mints (a sandbox's
 * key): never from the seeded generator, whose draws anyone with the seed can repeat.
 * @example secretHex(12) // '9f1c2a…' (24 characters)
 */
export function secretHex(bytes: number): string {
  return crypto().randomBytes(bytes).toString('hex');
}

/** node:crypto, loaded by the first secret minted: importing voxsim does not load it (issue 29). */
const crypto = lazyRequire<typeof import('node:crypto')>('node:crypto');
