import type { CardContent } from '../cards/card-fields';
import { synonymsFromText } from '../cards/card-fields';
import type { CefrLevel, Difficulty } from '../cards/cefr';
import type { PortableCard } from './portable-card';

/** The stored card fields an export reads. */
export interface ExportableCard extends Omit<
  CardContent,
  'synonyms' | 'difficulty' | 'difficultyLevel' | 'masteryLevel'
> {
  id: string;
  /** as stored: JSON text */
  synonyms: string;
  difficulty: string | null;
  difficultyLevel: string | null;
}

/** A stored card as it leaves the service: content only. Pure. */
export function toPortable(card: ExportableCard): PortableCard {
  const out: PortableCard = {
    word: card.word,
    translation: card.translation,
    synonyms: synonymsFromText(card.synonyms),
    tags: [...card.tags],
  };
  if (card.partOfSpeech) out.partOfSpeech = card.partOfSpeech;
  if (card.pronunciation) out.pronunciation = card.pronunciation;
  if (card.definition) out.definition = card.definition;
  if (card.example) out.exampleSentence = card.example;
  if (card.exampleTranslation) out.exampleTranslation = card.exampleTranslation;
  if (card.difficulty) out.difficulty = card.difficulty;
  if (card.difficultyLevel) out.level = card.difficultyLevel;
  return out;
}

/** An imported card's content in the card model's terms (absent optional fields become empty). Pure. */
export function toCardContent(card: PortableCard): Omit<CardContent, 'masteryLevel'> {
  return {
    word: card.word,
    translation: card.translation,
    definition: card.definition ?? '',
    partOfSpeech: card.partOfSpeech ?? null,
    pronunciation: card.pronunciation ?? null,
    example: card.exampleSentence ?? null,
    exampleTranslation: card.exampleTranslation ?? null,
    synonyms: card.synonyms,
    tags: card.tags,
    difficultyLevel: (card.level as CefrLevel | undefined) ?? null,
    difficulty: (card.difficulty as Difficulty | undefined) ?? null,
  };
}
