import { parseInput } from '@lingua/errors';
import type { GrpcServer } from '@lingua/grpc';
import { loadPackage } from '@lingua/proto';
import {
  FillBlankInput,
  WordInput,
  fillBlank,
  getInflections,
  getWordLevel,
} from '../../domain/language-facts.use-case';

/**
 * lingua.ai.v1.LanguageService: word facts for other services (flashcards' question types); no
 * service calls it yet (operators may).
 */
export function registerLanguageGrpc(server: GrpcServer): void {
  server.addService(
    loadPackage().lingua.ai.v1.LanguageService.service,
    {
      GetWordLevel: async (req) => {
        const r = getWordLevel(parseInput(WordInput, req));
        return { cefr_level: r.cefrLevel, estimated: r.estimated };
      },
      GetInflections: async (req) => ({ forms: getInflections(parseInput(WordInput, req)) }),
      FillBlank: async (req) => {
        const r = fillBlank(parseInput(FillBlankInput, req));
        return { text: r.text, blanked_form: r.blankedForm, found: r.found };
      },
    },
    { GetWordLevel: [], GetInflections: [], FillBlank: [] },
  );
}
