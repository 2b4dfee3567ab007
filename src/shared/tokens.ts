/**
 * Approximate token count of a text: about four characters per token, the rule seed 000
 * uses for budgeting. Good enough to keep prompts inside their budgets; exact counts
 * come back from the model in its usage report.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
