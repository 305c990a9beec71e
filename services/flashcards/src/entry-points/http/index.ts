import type { Express } from 'express';
import { createApiDocs, serveApiDocs } from '@lingua/openapi';
import { registerAchievementRoutes } from './achievements.routes';
import type { FlashcardsDeps } from './deps';
import { registerExportImportRoutes } from './export-import.routes';
import { flashcardSetsRouter } from './flashcard-sets.routes';
import { flashcardsRouter } from './flashcards.routes';
import { learningRouter } from './learning.routes';
import { FLASHCARDS_ROUTE_DOCS } from './route-docs';
import { studyRouter } from './study.routes';

export type { FlashcardsDeps, AchievementHook } from './deps';

/** Every HTTP route of the flashcards service (the gateway proxies these prefixes here). */
export function registerHttpRoutes(app: Express, deps: FlashcardsDeps): void {
  const docs = createApiDocs('flashcards');
  for (const doc of FLASHCARDS_ROUTE_DOCS) docs.route(doc);
  registerAchievementRoutes(app, deps, docs);
  registerExportImportRoutes(app, deps, docs);
  app.use('/api/flashcards', flashcardsRouter(deps));
  app.use('/api/study', studyRouter(deps));
  app.use('/api/flashcard-sets', flashcardSetsRouter(deps));
  app.use('/api/learning', learningRouter(deps));
  serveApiDocs(app, docs);
}
