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
      'regexp/no-super-linear-backtracking': ['error', { report: 'potential' }],
      'regexp/no-super-linear-move': ['error', { report: 'potential' }],
    },
  },
);
