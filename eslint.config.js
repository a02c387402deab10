import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';

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

/**
 * The second layout's boundaries (docs/architecture.md), by path. A new boundary is one more zone;
 * test/unit/lint-zones.test.ts proves a forbidden import fails.
 */
export const ZONES = [
  {
    target: './src/flows',
    from: ['./src/mcp', './src/http', './src/capabilities/call'],
    message: 'flows/ runs steps through the toolbox it is handed; it must not reach the surfaces or the call path.',
  },
  {
    target: ['./src/admin', './src/events', './src/ops'],
    from: ['./src/capabilities/call', './src/mcp', './src/http'],
    message:
      'admin/, events/ and ops/ serve the surfaces and the call path; they take narrow deps of their own and import neither.',
  },
  {
    target: './src/workspace',
    from: './src/browser',
    message: 'workspace/ remembers browsers; reading a page is browser/, handed in by the call path.',
  },
  {
    target: ['./src/mcp', './src/http'],
    from: './src/files',
    except: ['./names.ts', './uris.ts', './links.ts', './files.ts', './answers.ts'],
    message: 'The surfaces reach files/ through its names, uris, links, answer shapes and the Files facade only.',
  },
  {
    target: ['./src/mcp', './src/http'],
    from: './src/flows',
    except: ['./document.ts', './names.ts', './view.ts', './tool.ts'],
    message:
      'The surfaces reach flows/ through the call path; only the document schema, names, the service types and a flow as a tool are theirs.',
  },
  {
    target: ['./src/mcp', './src/http'],
    from: './src/capabilities/tools',
    message:
      'The surfaces render the capability table (capabilities/index.ts); a row they call for themselves is a ROLES entry, not an import.',
  },
  {
    // Every folder of src/ but redis/ itself: parts.ts (at the top) picks the store, commands.ts names it.
    target: './src/!(redis)/**',
    from: './src/redis',
    message:
      "Redis lives in redis/, behind each domain's interface; parts.ts picks memory or Redis, and no domain knows which.",
  },
  {
    target: './src/redis',
    from: [
      './src/capabilities',
      './src/mcp',
      './src/http',
      './src/admin',
      './src/flows',
      './src/browser',
      './src/grid',
    ],
    message: 'redis/ implements the stores the domains declare; it knows no surface, tool, flow or browser.',
  },
  {
    // live/'s own files are the live view and Control; its folders serve them and know nothing of them.
    target: ['./src/live/monitor', './src/live/tunnel'],
    from: './src/live/*.ts',
    message: 'live/monitor/ and live/tunnel/ serve the live view and Control; they import nothing of live/ itself.',
  },
  {
    target: './src/live/monitor',
    from: './src/live/tunnel',
    message: 'The BiDi monitor and the VNC tunnel are apart: live/ joins them.',
  },
  {
    target: './src/live/tunnel',
    from: './src/live/monitor',
    message: 'The BiDi monitor and the VNC tunnel are apart: live/ joins them.',
  },
  {
    // Every folder of src/ but embedded-grid/ itself; commands.ts (a file at the top) starts the Grid.
    target: './src/!(embedded-grid)/**',
    from: './src/embedded-grid',
    message: 'Only commands.ts starts the embedded Grid; the rest of src/ talks to a Grid by its URL (grid/).',
  },
  {
    target: ['./src/!(commands).ts'],
    from: './src/embedded-grid',
    message: 'Only commands.ts starts the embedded Grid; the rest of src/ talks to a Grid by its URL (grid/).',
  },
];

/** No cycles, and the zones: exported so the fixture test lints with exactly this. */
export const architecture = {
  files: ['src/**/*.ts'],
  plugins: { 'import-x': importX },
  settings: {
    'import-x/resolver-next': [createTypeScriptImportResolver()],
    // dependencies are TypeScript too: no-cycle must parse them to follow their imports
    'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
  },
  rules: {
    'import-x/no-cycle': 'error',
    'import-x/no-restricted-paths': ['error', { zones: ZONES }],
  },
};

/** capabilities/ holds rows and the call path; WebDriver calls are browser/'s. */
export const capabilitiesBoundary = {
  files: ['src/capabilities/**'],
  rules: {
    'no-restricted-imports': 'off',
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: lowerLayers('mcp', 'http')['no-restricted-imports'][1].patterns,
        // Handlers hold a WebDriver (a type); what they do with it is browser/'s.
        paths: [{ name: 'selenium-webdriver', message: 'WebDriver calls live in browser/.', allowTypeImports: true }],
      },
    ],
  },
};

export default tseslint.config(
  { ignores: ['dist/', '.bench/', 'node_modules/', 'data/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  ...svelte.configs.recommended,
  // Layout is Prettier's alone (npm run lint checks it); the rules after this may re-enable `curly`.
  prettier,
  ...svelte.configs.prettier,
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
    // The admin page: .svelte files parsed by Svelte's parser, their scripts by TypeScript's,
    // type-checked against ui/tsconfig.json like the rest (svelte-check adds the templates).
    files: ['ui/**/*.svelte', 'ui/**/*.svelte.ts'],
    languageOptions: { parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.svelte'] } },
  },
  { files: ['ui/src/**', 'ui/apps/*/**'], languageOptions: { globals: globals.browser } },
  architecture,
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
  capabilitiesBoundary,
  { files: ['src/mcp/**'], rules: lowerLayers('http') },
  { files: ['**/*.js', '**/*.mjs'], extends: [tseslint.configs.disableTypeChecked] },
  { files: ['scripts/**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly' } } },
);
