import { readerLanguage, say } from '../texts/texts.js';

/** The budget notices, in the reader's language. */
export function budgetReplies(language: string | null) {
  const lang = readerLanguage(language);
  return {
    user: say(lang, 'budgetUser'),
    deployment: say(lang, 'budgetDeployment'),
    owners: (budget: string, zone: string) => say(lang, 'budgetOwners', { budget, zone }),
  };
}
