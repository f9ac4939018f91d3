/** Phone numbers owned by accounts (spec: Phone number (account list)). */
import { formatIsoUtc } from '../../core/time.js';

export const NUMBER_TYPES = ['normal', 'sip', 'caller_id'] as const;
export type NumberType = (typeof NUMBER_TYPES)[number];

export const TYPE_LABELS: Record<NumberType, string> = {
  normal: 'Dedicated number',
  sip: 'SIP trunk',
  caller_id: 'Caller ID',
};

export interface PhoneNumber {
  id: number;
  account_id: number;
  phone_number: string;
  country_code: string;
  type: NumberType;
  sms_capable: boolean;
  region: string;
  has_active_subscription: boolean;
  created_at: number;
}

/** A number as the account list shows it. */
export function serialisePhoneNumber(n: PhoneNumber) {
  return {
    id: n.id,
    phone_number: n.phone_number,
    country_code: n.country_code,
    type: n.type,
    type_label: TYPE_LABELS[n.type],
    sms_capable: n.sms_capable,
    region: n.region,
    has_active_subscription: n.has_active_subscription,
    created_at: formatIsoUtc(n.created_at),
  };
}
