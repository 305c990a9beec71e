// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Which imports each layer may not use (a relative path into another layer, or a driver). */
function layerBans(layer) {
  const folder = (name) => ({
    regex: `^\\.{1,2}/(\\.\\./)*${name}(/|$)`,
    message: `${layer} may not import ${name} (README, "Layers": the domain owns the ports, start.ts wires)`,
  });
  const wiring = {
    regex: '^\\.{1,2}/(\\.\\./)*(start|main)$',
    message: `${layer} may not import the wiring (start.ts, main.ts)`,
  };
  const drivers = {
    regex: '^(mongoose|mongodb|redis|@lingua/mongo|@lingua/redis)(/|$)',
    message: `${layer} may not use a database driver: data-access implements a port for it`,
  };
  if (layer === 'domain') return [folder('data-access'), folder('entry-points'), wiring, drivers];
  if (layer === 'entry-points') return [folder('data-access'), wiring, drivers];
  return [folder('entry-points'), wiring];
}

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '.data/**',
      'libs/proto/src/generated/**',
      'test/client/lingua-api.d.ts',
      'coverage/**',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'error',
    },
  },
  // One-way layers inside each service and the gateway (README, "Layers"): domain defines the ports
  // and imports neither data-access nor entry-points nor a driver; data-access implements the ports;
  // entry-points call use cases and never reach a model, a repository module or a driver; start.ts
  // (and main.ts) alone wire implementations to ports. test/platform/layers.test.ts proves it fires.
  {
    files: ['services/*/src/domain/**/*.ts', 'gateway/src/domain/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: layerBans('domain') }] },
  },
  {
    files: ['services/*/src/data-access/**/*.ts', 'gateway/src/data-access/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: layerBans('data-access') }] },
  },
  {
    files: ['services/*/src/entry-points/**/*.ts', 'gateway/src/entry-points/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: layerBans('entry-points') }] },
  },
  {
    // Plain Node scripts (launcher, benchmarks, configs) are CommonJS and may print.
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        console: 'readonly',
        __dirname: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        Buffer: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        fetch: 'readonly',
        URL: 'readonly',
        AbortSignal: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
