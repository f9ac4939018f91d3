/**
 * Prompt variables (live-platform H.8): the one filler of every text the platform fills
 * for a call or a chat, the greeting (`initial_message`), the system prompt, the
 * voicemail message, and a mid-call tool's URL, header values and static body fields.
 *
 * - System variables, in double braces only: `{{customer_phone}}`, `{{assistant_phone}}`,
 *   `{{assistant_id}}` (the assistant's uuid), `{{assistant_name}}`, `{{current_date}}`
 *   (`2026-06-15`) and `{{current_time}}` (`14:30`), the date and time in the assistant's
 *   timezone at the call's start. A missing value (a web call's or a chat's phones) fills
 *   as the empty string.
 * - Call variables fill both `{name}` (the guide's form) and `{{name}}` (the reference's
 *   form); in double braces a system variable's name wins over a call variable's.
 * - Any other name stays as written, so a missing variable shows in the text.
 */
import { luxon } from './time.js';

/** The system variables' names, in the order H.8 lists them. */
export const SYSTEM_VARIABLES = ['customer_phone', 'assistant_phone', 'assistant_id', 'assistant_name', 'current_date', 'current_time'] as const;
export type SystemVariable = (typeof SYSTEM_VARIABLES)[number];
export type SystemValues = Readonly<Record<SystemVariable, string>>;

/** What the system variables are made of; a phone that is null or empty fills as ''. */
export interface PromptFacts {
  customer_phone: string | null;
  assistant_phone: string | null;
  /** The assistant's uuid (what `{{assistant_id}}` names, live-platform H.8). */
  assistant_uuid: string;
  assistant_name: string;
  /** The call's (or the chat's) start, epoch ms of the virtual clock. */
  at: number;
  /** The assistant's IANA timezone: the date and time are its local ones. */
  timezone: string;
}

/**
 * The system variables of a call or chat.
 * @example systemValues({ customer_phone: '+4915112345678', assistant_phone: null, assistant_uuid: 'c0e7…', assistant_name: 'Ava', at: Date.parse('2026-06-15T12:30:00Z'), timezone: 'Europe/Berlin' })
 * // { customer_phone: '+4915112345678', assistant_phone: '', assistant_id: 'c0e7…', assistant_name: 'Ava', current_date: '2026-06-15', current_time: '14:30' }
 */
export function systemValues(facts: PromptFacts): SystemValues {
  const local = luxon().DateTime.fromMillis(facts.at, { zone: facts.timezone });
  // An unknown zone (a restored record's) reads as UTC rather than an 'Invalid DateTime' text.
  const at = local.isValid ? local : luxon().DateTime.fromMillis(facts.at, { zone: 'UTC' });
  return {
    customer_phone: facts.customer_phone ?? '',
    assistant_phone: facts.assistant_phone ?? '',
    assistant_id: facts.assistant_uuid,
    assistant_name: facts.assistant_name,
    current_date: at.toFormat('yyyy-MM-dd'),
    current_time: at.toFormat('HH:mm'),
  };
}

/** `{{ name }}` (spaces allowed inside) or `{name}`; the double form is tried first at each place. */
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}|\{([A-Za-z0-9_.-]+)\}/g;

const has = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);

/** A call variable as text: a string as it is, anything else as JSON (what the reply templates do). */
function text(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Whether `text` may hold a placeholder: callers skip the filling (and building the
 * system values) for the many texts without one.
 */
export function hasPlaceholder(value: string): boolean {
  return value.includes('{');
}

/**
 * `template` with its placeholders filled (see the file's header). `system` is `systemValues`
 * (or a lazy source of them: called at most once, only when a double-brace placeholder is met).
 * @example fillPromptVariables('Hallo {customer_name}, hier ist {{assistant_name}}.', { assistant_name: 'Ava', … }, { customer_name: 'Max' }) // 'Hallo Max, hier ist Ava.'
 */
export function fillPromptVariables(template: string, system: SystemValues | (() => SystemValues), variables: Readonly<Record<string, unknown>>): string {
  if (!hasPlaceholder(template)) return template;
  let known: SystemValues | undefined = typeof system === 'function' ? undefined : system;
  return template.replace(PLACEHOLDER, (whole, double: string | undefined, single: string | undefined) => {
    if (double !== undefined) {
      if ((SYSTEM_VARIABLES as readonly string[]).includes(double)) {
        known ??= (system as () => SystemValues)();
        return known[double as SystemVariable];
      }
      return (has(variables, double) ? text(variables[double]) : undefined) ?? whole;
    }
    return (has(variables, single!) ? text(variables[single!]) : undefined) ?? whole;
  });
}
