import { type CefrLevel, isCefr, levelNumber } from '../cards/cefr';

export const QUESTION_TYPES = [
  'flashcard',
  'multiple_choice',
  'fill_in_blank',
  'typing',
  'sentence_construction',
] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

/** Producing the word (typing, building a sentence) is complex; recognising it is not. */
export const COMPLEX_TYPES: readonly QuestionType[] = ['typing', 'sentence_construction'];

export type Situation = 'a1_learner' | 'word_above_level' | 'word_at_level' | 'word_below_level';

export interface ReviewModeDecision {
  questionType: QuestionType;
  situation: Situation;
  availableTypes: QuestionType[];
  learnerLevel: CefrLevel;
  wordLevel: CefrLevel | null;
}

/**
 * The question type for a card, from the learner's CEFR level against the word's (a card without
 * a level counts as at the learner's level). A1 learners never get complex types. Within the
 * available types, a weaker card (mastery < 50) gets the easier one. Pure.
 */
export function optimalReviewMode(
  learnerLevel: CefrLevel,
  card: { difficultyLevel: string | null; masteryLevel: number },
): ReviewModeDecision {
  const wordLevel = isCefr(card.difficultyLevel) ? card.difficultyLevel : null;
  const diff = wordLevel ? levelNumber(wordLevel) - levelNumber(learnerLevel) : 0;
  const weak = card.masteryLevel < 50;
  let situation: Situation;
  let availableTypes: QuestionType[];
  let questionType: QuestionType;
  if (learnerLevel === 'A1') {
    situation = 'a1_learner';
    availableTypes = ['flashcard', 'multiple_choice', 'fill_in_blank'];
    questionType = weak ? 'flashcard' : 'multiple_choice';
  } else if (diff > 0) {
    situation = 'word_above_level';
    availableTypes = ['flashcard', 'multiple_choice'];
    questionType = weak ? 'flashcard' : 'multiple_choice';
  } else if (diff === 0) {
    situation = 'word_at_level';
    availableTypes = ['flashcard', 'multiple_choice', 'fill_in_blank', 'typing'];
    questionType = weak ? 'multiple_choice' : 'fill_in_blank';
  } else {
    situation = 'word_below_level';
    availableTypes = ['multiple_choice', 'fill_in_blank', 'typing', 'sentence_construction'];
    questionType = weak ? 'fill_in_blank' : 'typing';
  }
  return { questionType, situation, availableTypes, learnerLevel, wordLevel };
}
