/** Finds the user's contacts by a name, nickname or relationship (src/contacts ContactService.find). */
export interface PeopleFinder {
  find(userId: string, query: string): Promise<Array<{ name: string; relationship: string | null; emails: string[] }>>;
}

/** One person a name could mean, with the address a pick would use. */
interface PersonMatch {
  /** How the user tells them apart: 'Dana Katz (sister) dana@katz.example'. */
  label: string;
  address: string;
}

/** The addresses of the people named, or the first name that needs the user. */
export type NamesResolved =
  | { ok: true; addresses: string[]; names: Map<string, string> }
  /** Nobody of that name has an email address: ask the user once, and offer to save the answer. */
  | { ok: false; kind: 'unknown'; name: string; error: string }
  /** Several people: Herald asks which one itself; `rest` are the names after this one, still to resolve. */
  | { ok: false; kind: 'several'; name: string; error: string; matches: PersonMatch[]; addresses: string[]; rest: string[] };

/**
 * "Email Dana", "invite mom": each name to the one contact it means, with an email address.
 * Addresses already given (`addresses`) are kept and added to; a name that means nobody, or
 * several people, stops there and says so (worded for the model), with what was resolved so
 * far, so the caller can pin every candidate as its own call.
 */
export async function resolveNames(people: PeopleFinder, userId: string, names: string[], addresses: string[], nothing: string): Promise<NamesResolved> {
  const found = [...addresses];
  const known = new Map<string, string>();
  for (const [index, name] of names.entries()) {
    const matches = (await people.find(userId, name)).filter((person) => person.emails.length > 0);
    if (matches.length === 0) {
      return { ok: false, kind: 'unknown', name, error: `No contact called "${name}" has an email address, so ${nothing}. Do not guess one: ask the user once for ${name}'s address (complete with needsClarification), and offer to save it as a contact.` };
    }
    if (matches.length > 1) {
      return {
        ok: false,
        kind: 'several',
        name,
        error: `Several contacts match "${name}"; ${nothing}. Herald asks the user which one itself: complete with needsClarification and do not pick.`,
        matches: matches.map((person) => ({ label: `${person.name}${person.relationship ? ` (${person.relationship})` : ''} ${person.emails[0]}`, address: person.emails[0]!.toLowerCase() })),
        addresses: found,
        rest: names.slice(index + 1),
      };
    }
    const address = matches[0]!.emails[0]!.toLowerCase();
    if (!found.includes(address)) found.push(address);
    known.set(address, matches[0]!.name);
  }
  return { ok: true, addresses: found, names: known };
}
