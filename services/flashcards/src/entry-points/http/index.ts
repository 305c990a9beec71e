import type { Express } from 'express';
import { createApiDocs, serveApiDocs } from '@lingua/openapi';
import { registerAchievementRoutes } from './achievements.routes';
import type { FlashcardsDeps } from './deps';
import { registerExportImportRoutes } from './export-import.routes';
import { flashcardSetsRouter } from './flashcard-sets.routes';
import { flashcardsRouter } from './flashcards.routes';
import { learningRouter } from './learning.routes';
import { studyRouter } from './study.routes';

export type { FlashcardsDeps, AchievementHook } from './deps';

/**
 * Every HTTP route of the flashcards service (the gateway proxies these prefixes here); each route
 * is declared once, and its OpenAPI entry comes from the same declaration.
 */
export function registerHttpRoutes(app: Express, deps: FlashcardsDeps): void {
  const docs = createApiDocs('flashcards');
  app.use('/api/flashcards', flashcardsRouter(deps, docs));
  app.use('/api/study', studyRouter(deps, docs));
  app.use('/api/flashcard-sets', flashcardSetsRouter(deps, docs));
  app.use('/api/learning', learningRouter(deps, docs));
  registerAchievementRoutes(app, deps, docs);
  registerExportImportRoutes(app, deps, docs);
  serveApiDocs(app, docs);
}
