import { execFile } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

interface LintMessage {
  ruleId: string | null;
  message: string;
}

// ESLint's Node API in one child process for every probe (jest's module sandbox cannot load the
// ESM config itself): each probe is linted as if it were the file at its path (which need not exist)
// with the repository's eslint.config.mjs, the way `npm run lint` does.
const LINT_PROBES = `
const { ESLint } = require('eslint');
let input = '';
process.stdin.on('data', (d) => (input += d)).on('end', async () => {
  const eslint = new ESLint({ cwd: process.cwd() });
  const out = [];
  for (const { filePath, code } of JSON.parse(input)) {
    const [result] = await eslint.lintText(code, { filePath });
    out.push(result.messages);
  }
  process.stdout.write(JSON.stringify(out));
});`;

type Probe = { filePath: string; code: string };
const probes: Probe[] = [];
let linted: Promise<LintMessage[][]> | undefined;

/** Registers a probe now (at collection); its layer-rule messages once every probe was linted. */
function layerViolations(filePath: string, code: string): () => Promise<LintMessage[]> {
  const index = probes.push({ filePath, code }) - 1;
  return async () => {
    linted ??= new Promise((resolve, reject) => {
      const child = execFile(
        process.execPath,
        ['-e', LINT_PROBES],
        { cwd: ROOT, timeout: 120_000, maxBuffer: 10 * 1024 * 1024 },
        (err, stdout) => (err ? reject(err) : resolve(JSON.parse(stdout) as LintMessage[][])),
      );
      child.stdin!.end(JSON.stringify(probes));
    });
    return (await linted)[index]!.filter((m) => m.ruleId === 'no-restricted-imports');
  };
}

// docs/development.md, "Layers": the boundary rule in eslint.config.mjs, proven to fire on each kind of leak
describe('the layer rule (npm run lint)', () => {
  const useCaseImportsRepository = layerViolations(
    'services/flashcards/src/domain/probe.use-case.ts',
    "import type { CardRepository } from '../data-access/card.repository';\nexport type P = CardRepository;\n",
  );
  const nestedDomainLeaks = layerViolations(
    'services/identity/src/domain/rules/probe.ts',
    [
      "import type { Router } from '../../entry-points/http/index';",
      "import { start } from '../../start';",
      "import type { Connection } from 'mongoose';",
      "import type { RedisClient } from '@lingua/redis';",
      'export type P = [Router, typeof start, Connection, RedisClient];',
      '',
    ].join('\n'),
  );
  const routeImportsModel = layerViolations(
    'services/flashcards/src/entry-points/http/probe.routes.ts',
    "import { reviewModel } from '../../data-access/review.model';\nexport const m = reviewModel;\n",
  );
  const gatewayRouteImportsDriver = layerViolations(
    'gateway/src/entry-points/http/probe.routes.ts',
    "import type { Model } from 'mongoose';\nexport type M = Model<object>;\n",
  );
  const repositoryImportsEntryPoint = layerViolations(
    'services/subscriptions/src/data-access/probe.repository.ts',
    "import type { Router } from '../entry-points/http/index';\nexport type R = Router;\n",
  );
  // domain → its own ports; entry-points → domain; data-access → domain and its driver; start.ts → all
  const allowed = [
    layerViolations(
      'services/flashcards/src/domain/probe.use-case.ts',
      "import type { CardRepository } from './ports';\nexport type P = CardRepository;\n",
    ),
    layerViolations(
      'services/flashcards/src/entry-points/http/probe.routes.ts',
      "import { reviewCard } from '../../domain/review-card.use-case';\nexport const r = reviewCard;\n",
    ),
    layerViolations(
      'services/flashcards/src/data-access/probe.repository.ts',
      "import type { Card } from '../domain/ports';\nimport type { Connection } from 'mongoose';\nexport type P = [Card, Connection];\n",
    ),
    layerViolations(
      'services/flashcards/src/start.ts',
      "import { cardModel } from './data-access/card.model';\nimport { registerHttpRoutes } from './entry-points/http';\nexport const w = [cardModel, registerHttpRoutes];\n",
    ),
  ];

  it('When a use case imports a repository module, Then lint fails naming the rule', async () => {
    const found = await useCaseImportsRepository();
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toMatch(/domain may not import data-access/);
  });

  it('When nested domain code imports an entry-point, the wiring or a driver, Then each import fails', async () => {
    expect((await nestedDomainLeaks()).map((m) => m.message)).toEqual([
      expect.stringMatching(/domain may not import entry-points/),
      expect.stringMatching(/domain may not import the wiring/),
      expect.stringMatching(/domain may not use a database driver/),
      expect.stringMatching(/domain may not use a database driver/),
    ]);
  });

  it('When a route reaches a model or a driver, Then lint fails; data-access may not import entry-points', async () => {
    expect((await routeImportsModel()).map((m) => m.message)).toEqual([
      expect.stringMatching(/entry-points may not import data-access/),
    ]);
    expect((await gatewayRouteImportsDriver()).map((m) => m.message)).toEqual([
      expect.stringMatching(/entry-points may not use a database driver/),
    ]);
    expect((await repositoryImportsEntryPoint()).map((m) => m.message)).toEqual([
      expect.stringMatching(/data-access may not import entry-points/),
    ]);
  });

  it('When code imports in the allowed direction, Then the rule is quiet', async () => {
    for (const probe of allowed) expect(await probe()).toEqual([]);
  });
});
