/** What control-plane services (accounts, inserted numbers) work with: the whole simulator state, not one account. */
import type { VirtualClock } from '../core/clock.js';
import type { SeededRandom } from '../core/random.js';
import type { EventBus } from '../core/events.js';
import type { OutcomeScript } from '../engine/outcomes.js';
import type { ReplyScript } from '../engine/replies.js';
import type { WebhookEngine } from '../engine/webhooks.js';
import type { Database } from './db.js';

export interface SimState {
  readonly db: Database;
  readonly clock: VirtualClock;
  readonly random: SeededRandom;
  readonly webhooks: WebhookEngine;
  readonly replies: ReplyScript;
  readonly outcomes: OutcomeScript;
  readonly events: EventBus;
  /** Account scopes already built, by account row (rows are replaced on reset and restore). */
  readonly scopes: WeakMap<object, unknown>;
}
