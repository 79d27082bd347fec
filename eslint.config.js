// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/**
 * Dependency direction is one way: doors -> api -> review -> engine -> wasm glue.
 * Each layer lists what it may not import; a wrong import fails `npm run lint`
 * (and so `npm test`). test/lint/boundaries.test.ts proves the rule bites.
 */
const layer = (/** @type {string} */ regex, /** @type {string} */ message) => ({ regex, message });
const ui = layer('^(react|react-dom|monaco-editor|zustand)(/|$)', 'UI libraries belong to src-renderer only.');
const electron = layer('^electron(/|$)', 'Only src-main/doors/electron may import electron.');
const net = layer('^(node:)?(http|https|net|http2)$|^@modelcontextprotocol/|^ws$', 'Network servers are doors (src-main/doors).');
const up = (/** @type {string[]} */ dirs, /** @type {string} */ who) =>
  layer(`(^|/)(${dirs.join('|')})(/|$)`, `${who} may not import from ${dirs.join(', ')}: dependencies point doors -> api -> review -> engine.`);
const renderer = layer('(^|/)src-renderer(/|$)', 'Node code may not import the renderer; shared types live in src-main/api.');
const restrict = (/** @type {ReturnType<typeof layer>[]} */ ...patterns) => ({
  'no-restricted-imports': ['error', { patterns }],
});

export default tseslint.config(
  { ignores: ['node_modules/**', 'out/**', 'dist/**', 'wasm/**', 'test-results/**', 'playwright-report/**', 'e2e/artifacts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  { files: ['src-main/engine/**'], rules: restrict(up(['review', 'api', 'doors'], 'engine'), electron, ui, net) },
  { files: ['src-main/review/**'], rules: restrict(up(['api', 'doors'], 'review'), electron, ui, net) },
  { files: ['src-main/api/**'], rules: restrict(up(['doors'], 'api'), electron, ui, net, renderer) },
  {
    files: ['src-main/doors/**'],
    ignores: ['src-main/doors/electron/**'],
    rules: restrict(up(['engine', 'review'], 'a door'), electron, ui, renderer),
  },
  { files: ['src-main/doors/electron/**'], rules: restrict(up(['engine', 'review'], 'a door'), ui, renderer) },
  {
    files: ['src-renderer/**'],
    rules: restrict(
      up(['engine', 'review', 'doors', 'kernels'], 'the renderer'),
      electron,
      layer('^node:', 'The renderer runs in a browser: no Node built-ins.'),
    ),
  },
);
