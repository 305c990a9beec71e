import { fillInBlankText } from './fill-in-blank';
import type { QuestionType } from './question-types';

export interface QuestionCard {
  id: string;
  word: string;
  translation: string;
  definition: string;
  example: string | null;
  exampleTranslation: string | null;
  filledQuestionText: string | null;
}

export interface Question {
  flashcardId: string;
  questionType: QuestionType;
  prompt: string;
  questionText: string;
  options?: string[];
  correctAnswer: string;
  hint?: string;
}

/** Options: the right translation plus up to three distinct others, in a stable order derived from the card id. */
function choices(correct: string, others: string[], seed: string): string[] {
  const distinct = [...new Set(others.filter((o) => o.toLowerCase() !== correct.toLowerCase()))].slice(0, 3);
  const all = [correct, ...distinct];
  let h = 0;
  for (const ch of seed) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  const pos = all.length > 0 ? h % all.length : 0;
  [all[0], all[pos]] = [all[pos]!, all[0]!];
  return all;
}

/** A question of the given type about the card. Pure: distractors are passed in. */
export function buildQuestion(type: QuestionType, card: QuestionCard, distractors: string[]): Question {
  const base = { flashcardId: card.id, questionType: type };
  switch (type) {
    case 'flashcard':
      return {
        ...base,
        prompt: 'Recall the translation',
        questionText: card.word,
        correctAnswer: card.translation,
      };
    case 'multiple_choice':
      return {
        ...base,
        prompt: 'Choose the correct translation',
        questionText: card.word,
        options: choices(card.translation, distractors, card.id),
        correctAnswer: card.translation,
      };
    case 'fill_in_blank': {
      const blank = fillInBlankText(card);
      return {
        ...base,
        prompt: 'Fill in the blank',
        questionText: card.filledQuestionText ?? blank.text,
        correctAnswer: blank.answer,
        ...(card.exampleTranslation && { hint: card.exampleTranslation }),
      };
    }
    case 'typing':
      return {
        ...base,
        prompt: 'Type the word for this translation',
        questionText: card.translation,
        correctAnswer: card.word,
      };
    case 'sentence_construction':
      return {
        ...base,
        prompt: 'Write a sentence using this word',
        questionText: card.word,
        correctAnswer: card.example ?? card.word,
        hint: card.translation,
      };
  }
}
