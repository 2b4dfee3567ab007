// The linter is part of the code (docs/ARCHITECTURE.md): typescript-eslint's type-checked rules
// on src/, and eslint-plugin-regexp on every regular expression, with the two rules that find
// expressions whose time can grow faster than their input (issue 32: one contact card froze
// Herald for 15 s). A finding is fixed, or disabled on its line with the reason.
import js from '@eslint/js';
import regexp from 'eslint-plugin-regexp';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'src/generated/**', 'node_modules/**', '.data/**', '.scratch/**', 'coverage/**', 'reports/**', '.stryker-tmp/**'] },
  {
    files: ['src/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked, regexp.configs['flat/recommended']],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Off, as in most typed codebases: Fastify registers routes in async plugins, and services
      // implement Promise-returning interfaces whose in-memory versions have nothing to await.
      '@typescript-eslint/require-await': 'off',
      // `{ dropped: _, ...kept }` is how a field is left out of a copy.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      // A group nobody reads is made non-capturing (the fix is safe: the rule checks every use).
      'regexp/no-unused-capturing-group': ['error', { fixable: true }],
      'regexp/no-super-linear-backtracking': ['error', { report: 'potential' }],
      'regexp/no-super-linear-move': ['error', { report: 'potential' }],
    },
  },
);
