/**
 * What the composition root hands the domains: the tables, the clock, the seeded
 * generator and the engines. Services that act for the whole platform (accounts,
 * inserted numbers, chat routes that carry no credential) work with it; everything
 * else works in one account's scope (context.ts).
 */
import type { VirtualClock } from '../core/clock.js';
import type { SeededRandom } from '../core/random.js';
import type { Wire } from '../core/wire.js';
import type { EventBus } from '../core/events.js';
import type { MessageOutcomeScript } from '../engine/message-outcomes.js';
import type { OutcomeScript } from '../engine/outcomes.js';
import type { ReplyScript } from '../engine/replies.js';
import type { WebhookEngine } from '../engine/webhooks.js';
import type { CatalogSetting } from './catalog/setting.js';
import type { Database } from './db.js';
import type { FileSpace } from '../core/files.js';
import type { SimEventMap } from './sim-events.js';

export interface SimState {
  readonly db: Database;
  readonly clock: VirtualClock;
  /** The wire bodies are encoded in (live-platform Rule 5). */
  readonly wire: Wire;
  /** The catalog document in force and the catalog it makes under each wire (issue 27). */
  readonly catalogs: CatalogSetting;
  /** The seeded generator (replaced on reset and restore: read it, do not keep it). */
  readonly random: SeededRandom;
  readonly webhooks: WebhookEngine;
  readonly replies: ReplyScript;
  readonly outcomes: OutcomeScript;
  /** Scripted delivery outcomes of sent messages (live-platform H.4). */
  readonly messageOutcomes: MessageOutcomeScript;
  /** Where the simulator's files are served (live-platform H.7). */
  readonly files: FileSpace;
  readonly events: EventBus<SimEventMap>;
  /** Account scopes already built, by account row (rows are replaced on reset and restore). */
  readonly scopes: WeakMap<object, unknown>;
  /**
   * The key of the sandbox this simulator is (issue 35), else null: every account key of a
   * sandbox is that key or starts with it and `_`, so the server can tell whose a key is.
   */
  readonly sandboxKey: string | null;
}
