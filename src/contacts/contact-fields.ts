import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { isEmailAddress } from '../shared/text-ends.js';
import { CONTACT_LIMITS } from './contact-limits.js';
import type { VcardContact } from './vcard.js';

/** E.164 when the number parses (in the user's own country when it has no +), else as written. */
export function normalizePhone(phone: string, country?: CountryCode): string {
  const parsed = parsePhoneNumberFromString(phone, country);
  return parsed?.isValid() ? parsed.number : phone.trim();
}

/** Values trimmed, empty ones dropped, each once, in their first order. */
export const uniqueValues = (values: Iterable<string>) => [...new Set([...values].map((value) => value.trim()).filter(Boolean))];

/** A contact held to CONTACT_LIMITS, with what was cut or refused on the way. */
export interface HeldContact {
  contact: VcardContact;
  /** One line per value cut or refused, starting with `label`. */
  refusals: string[];
  /** How many values were cut or refused. */
  refused: number;
}

/**
 * A contact from anywhere (an address book, Google, a merge of two cards) held to
 * CONTACT_LIMITS: the name, relationship and notes cut; a nickname, phone or email past its
 * length refused, and an email that is not one refused; each list at most `valuesPerField`
 * (phones normalised first, so "+1 415…" and "(415)…" count once). Linear in its input.
 */
export function holdToLimits(card: VcardContact, country: CountryCode | undefined, label: string): HeldContact {
  const refusals: string[] = [];
  let refused = 0;
  const refuse = (message: string, how = 1) => {
    refused += how;
    refusals.push(`${label}: ${message}`);
  };
  const cut = (value: string | undefined, cap: number, what: string): string | undefined => {
    const text = value?.trim();
    if (!text) return undefined;
    if (text.length <= cap) return text;
    refuse(`${what} cut to ${cap.toLocaleString('en-US')} characters`);
    return text.slice(0, cap).trim();
  };
  const within = (values: readonly string[], cap: number, what: string, valid: (value: string) => boolean = () => true) =>
    values.filter((value) => {
      if (value.length > cap) refuse(`${what} longer than ${cap} characters was refused`);
      else if (!valid(value)) refuse(`${what} that is not one was refused`);
      else return true;
      return false;
    });
  const capped = (values: string[], what: string) => {
    const unique = uniqueValues(values);
    if (unique.length > CONTACT_LIMITS.valuesPerField) refuse(`${unique.length - CONTACT_LIMITS.valuesPerField} ${what} over the ${CONTACT_LIMITS.valuesPerField} a contact keeps were refused`, unique.length - CONTACT_LIMITS.valuesPerField);
    return unique.slice(0, CONTACT_LIMITS.valuesPerField);
  };
  const contact: VcardContact = {
    name: cut(card.name, CONTACT_LIMITS.name, 'the name') ?? '',
    nicknames: capped(within(card.nicknames.map((nickname) => nickname.trim()), CONTACT_LIMITS.nickname, 'a nickname'), 'nicknames'),
    phones: capped(within(card.phones.map((phone) => phone.trim()), CONTACT_LIMITS.phone, 'a phone number').map((phone) => normalizePhone(phone, country)), 'phones'),
    emails: capped(within(card.emails.map((email) => email.trim().toLowerCase()), CONTACT_LIMITS.email, 'an email address', isEmailAddress), 'emails'),
    birthday: card.birthday,
    notes: cut(card.notes, CONTACT_LIMITS.notes, 'the note'),
    relationship: cut(card.relationship, CONTACT_LIMITS.relationship, 'the relationship'),
    uid: card.uid,
  };
  return { contact, refusals, refused };
}
