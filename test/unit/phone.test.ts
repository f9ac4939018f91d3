/** Reading numbers per wire (spec: Phone numbers; live-platform G.3 item 2): src/core/phone.ts. */
import { describe, expect, it } from 'vitest';
import { normaliseNumber, readE164 } from '../../src/core/phone.js';

describe('readE164', () => {
  it('on the spec wire, takes only a number that could be dialled in its country', () => {
    expect(readE164('+14155550123')).toStrictEqual({ number: '+14155550123', country: 'US' });
    expect(readE164('+1234567890')).toBeUndefined();
    expect(readE164('+1 415 555 0123')).toBeUndefined();
  });

  it('on the live wire, takes E.164\'s form: + then 7 to 15 digits, the first not 0', () => {
    expect(readE164('+1234567', 'live')?.number).toBe('+1234567');
    expect(readE164('+123456789012345', 'live')?.number).toBe('+123456789012345');
    for (const text of ['+123456', '+1234567890123456', '+0123456789', '1234567890', '+12345abc90', '']) expect(readE164(text, 'live'), text).toBeUndefined();
  });

  it('on the live wire, normalises first and names the country of the number or of its calling code', () => {
    expect(readE164('00 49 (151) 2345-6789', 'live')).toStrictEqual({ number: '+4915123456789', country: 'DE' });
    expect(readE164('+1234567890', 'live')).toStrictEqual({ number: '+1234567890', country: 'US' });
    expect(readE164('+4412345678', 'live')).toStrictEqual({ number: '+4412345678', country: 'GB' });
    expect(readE164('+999123456', 'live')).toStrictEqual({ number: '+999123456', country: 'US' });
  });
});

describe('normaliseNumber', () => {
  it('drops spaces, dashes and parentheses and writes a leading 00 as +', () => {
    expect(normaliseNumber('0049 (151) 234-5678')).toBe('+491512345678');
    expect(normaliseNumber('+1 (234) 567-890')).toBe('+1234567890');
    expect(normaliseNumber('+1.234')).toBe('+1.234');
  });
});
