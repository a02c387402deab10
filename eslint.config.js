import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

/** Layering, held by the linter rather than by prose: browser/ and grid/ know nothing above them. */
const lowerLayers = (...forbidden) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: forbidden.map((dir) => ({
        group: [`../${dir}/*`, `../../${dir}/*`],
        message: `This layer must not import ${dir}/.`,
      })),
    },
  ],
});

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'ui/', 'data/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  // Layout is Prettier's alone (npm run lint checks it); the rules after this may re-enable `curly`.
  prettier,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      curly: 'error',
      eqeqeq: 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['src/browser/**', 'src/grid/**'],
    rules: lowerLayers('capabilities', 'workspace', 'mcp', 'http', 'flows', 'secrets', 'files', 'live'),
  },
  { files: ['src/workspace/**'], rules: lowerLayers('capabilities', 'mcp', 'http', 'flows', 'secrets', 'live') },
  {
    files: ['src/secrets/**'],
    rules: lowerLayers('capabilities', 'mcp', 'http', 'flows', 'files', 'live', 'browser', 'grid', 'workspace'),
  },
  {
    files: ['src/files/**'],
    rules: lowerLayers('capabilities', 'mcp', 'http', 'flows', 'secrets', 'live', 'browser', 'grid'),
  },
  { files: ['src/live/**'], rules: lowerLayers('capabilities', 'mcp', 'http', 'flows') },
  { files: ['src/capabilities/**'], rules: lowerLayers('mcp', 'http') },
  { files: ['src/mcp/**'], rules: lowerLayers('http') },
  { files: ['**/*.js', '**/*.mjs'], extends: [tseslint.configs.disableTypeChecked] },
  { files: ['scripts/**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly' } } },
);
