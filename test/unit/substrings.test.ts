import { describe, expect, it } from 'vitest';
import { SubstringCounts } from '../../src/core/substrings.js';

describe('SubstringCounts', () => {
  it('counts the texts that hold a substring, each text as many times as it was added', () => {
    const counts = new SubstringCounts(16);
    counts.add('+15551230001', 3);
    counts.add('+15559870002');
    expect([counts.count('555'), counts.count('123'), counts.count('0002'), counts.count('+1555'), counts.count('999')]).toEqual([4, 3, 1, 4, 0]);
  });

  it('counts a text once for a substring it holds twice', () => {
    const counts = new SubstringCounts(16);
    counts.add('+10001000', 2);
    expect([counts.count('0'), counts.count('000'), counts.count('1000')]).toEqual([2, 2, 2]);
  });

  it('takes texts away with a negative count, down to nothing', () => {
    const counts = new SubstringCounts(16);
    counts.add('+15551230001', 2);
    counts.add('+15551230001', -2);
    expect([counts.count('555'), counts.count('')]).toEqual([0, 0]);
  });

  it('answers every text for the empty needle', () => {
    const counts = new SubstringCounts(16);
    counts.add('+1', 2);
    counts.add('+2');
    expect(counts.count('')).toBe(3);
  });

  it('answers a needle of maxLength characters, and nothing (undefined) for a longer one', () => {
    const counts = new SubstringCounts(4);
    counts.add('123456');
    expect([counts.count('3456'), counts.count('23456')]).toEqual([1, undefined]);
  });

  it('agrees with String.includes over many texts and needles', () => {
    const texts = ['+14155550100', '+14155550100', '+442071838750', '+15550000001', '555-0100', '+1 (415) 555-0199'];
    const counts = new SubstringCounts(16);
    for (const t of texts) counts.add(t);
    for (const needle of ['0', '00', '555', '0100', '+1', ' (', '-', '4155550', '7183875', '9']) {
      expect(counts.count(needle), needle).toBe(texts.filter((t) => t.includes(needle)).length);
    }
  });
});
