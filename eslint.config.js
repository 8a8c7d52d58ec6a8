import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['**/*.mjs', '**/*.cjs', 'bench/**', 'test/**/fixtures/**'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly' } },
  },
  {
    // The live map's page runs in the browser (plain ES modules, no build step).
    files: ['src/web/page/**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(['document', 'window', 'location', 'EventSource', 'URLSearchParams', 'fetch', 'setTimeout', 'setInterval', 'clearInterval', 'requestAnimationFrame', 'getComputedStyle'].map((g) => [g, 'readonly'])),
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { globals: { module: 'writable', require: 'readonly' } },
  },
)
