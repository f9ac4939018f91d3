/** The prompt-variable filler (live-platform H.8). */
import { describe, expect, it } from 'vitest';
import { fillPromptVariables, hasPlaceholder, systemValues, type PromptFacts } from '../../src/core/prompt-variables.js';

const FACTS: PromptFacts = {
  customer_phone: '+4915112345678',
  assistant_phone: '+4930123456',
  assistant_uuid: 'c0e7add3-b07a-4186-aae9-a416e90fd022',
  assistant_name: 'Ava',
  at: Date.parse('2026-06-15T12:30:00Z'),
  timezone: 'Europe/Berlin',
};

describe('systemValues', () => {
  it("gives the phones, the uuid, the name, and the date and time in the assistant's timezone", () => {
    expect(systemValues(FACTS)).toStrictEqual({
      customer_phone: '+4915112345678',
      assistant_phone: '+4930123456',
      assistant_id: 'c0e7add3-b07a-4186-aae9-a416e90fd022',
      assistant_name: 'Ava',
      current_date: '2026-06-15',
      current_time: '14:30',
    });
  });

  it('moves the date at local midnight, not UTC midnight', () => {
    const late = systemValues({ ...FACTS, at: Date.parse('2026-06-15T22:30:00Z') });
    expect([late.current_date, late.current_time]).toEqual(['2026-06-16', '00:30']);
    const ny = systemValues({ ...FACTS, at: Date.parse('2026-06-15T02:05:00Z'), timezone: 'America/New_York' });
    expect([ny.current_date, ny.current_time]).toEqual(['2026-06-14', '22:05']);
  });

  it('fills a missing phone as the empty string', () => {
    const web = systemValues({ ...FACTS, customer_phone: null, assistant_phone: null });
    expect([web.customer_phone, web.assistant_phone]).toEqual(['', '']);
  });
});

describe('fillPromptVariables', () => {
  const system = systemValues(FACTS);

  it("fills the guide's example", () => {
    expect(fillPromptVariables('Hallo {customer_name}, hier ist {{assistant_name}} am {{current_date}}.', system, { customer_name: 'Max' })).toBe('Hallo Max, hier ist Ava am 2026-06-15.');
  });

  it('fills call variables in single and double braces, spaces allowed inside double ones', () => {
    expect(fillPromptVariables('{name} / {{name}} / {{ name }}', system, { name: 'Max' })).toBe('Max / Max / Max');
  });

  it('lets a system variable win in double braces, the call variable in single ones', () => {
    expect(fillPromptVariables('{{assistant_name}} {assistant_name}', system, { assistant_name: 'Bob' })).toBe('Ava Bob');
  });

  it('keeps unknown names, null values and JSON-like text as written', () => {
    expect(fillPromptVariables('{{nobody}} {nobody} {gone} {"a": 1} {}', system, { gone: null })).toBe('{{nobody}} {nobody} {gone} {"a": 1} {}');
  });

  it('writes a value that is not a string as JSON', () => {
    expect(fillPromptVariables('{n} {flag} {list}', system, { n: 3, flag: true, list: [1, 2] })).toBe('3 true [1,2]');
  });

  it('works the system values out only when a double-brace system name is met', () => {
    let made = 0;
    const lazy = () => {
      made++;
      return system;
    };
    expect(fillPromptVariables('Hallo {customer_name}', lazy, { customer_name: 'Max' })).toBe('Hallo Max');
    expect(made).toBe(0);
    expect(fillPromptVariables('{{current_time}} {{customer_phone}}', lazy, {})).toBe('14:30 +4915112345678');
    expect(made).toBe(1);
  });

  it('answers a text without a brace as it is', () => {
    expect(hasPlaceholder('Hello!')).toBe(false);
    expect(fillPromptVariables('Hello!', () => {
      throw new Error('not needed');
    }, {})).toBe('Hello!');
  });
});
