import { buildQuestion } from './build-question';
import { blankWord, fillInBlankText } from './fill-in-blank';
import { inflectedForms } from './inflection';
import { COMPLEX_TYPES, optimalReviewMode } from './question-types';
import { CEFR_LEVELS } from '../cards/cefr';

describe('inflected forms and fill-in-the-blank', () => {
  it.each([
    ['run', 'She ran home.', 'She _____ home.', 'ran'],
    ['run', 'He is running late.', 'He is _____ late.', 'running'],
    ['study', 'She studied all night.', 'She _____ all night.', 'studied'],
    ['make', 'They are making tea.', 'They are _____ tea.', 'making'],
    ['stop', 'The bus stopped.', 'The bus _____.', 'stopped'],
    ['box', 'Two boxes, please.', 'Two _____, please.', 'boxes'],
    ['child', 'The Children play.', 'The _____ play.', 'Children'],
    ['go', 'We went there.', 'We _____ there.', 'went'],
    ['cat', 'Cat food.', '_____ food.', 'Cat'],
  ])('When the word is "%s" in "%s", Then "%s" with answer "%s"', (word, sentence, text, answer) => {
    expect(blankWord(sentence, word)).toEqual({ text, answer });
  });

  it('When the word is only part of another word, Then it is not blanked', () => {
    expect(blankWord('The category is new.', 'cat')).toBeNull();
  });

  it('When special characters are in the word, Then they match literally', () => {
    expect(blankWord('I use C++ daily', 'C++')).toEqual({ text: 'I use _____ daily', answer: 'C++' });
    expect(inflectedForms('a.b')).toContain('a.b');
  });

  it('When the word holds a hyphen, a slash or other punctuation, Then it is blanked, not a RegExp SyntaxError', () => {
    expect(blankWord('A well-known fact', 'well-known')).toEqual({
      text: 'A _____ fact',
      answer: 'well-known',
    });
    expect(blankWord('Read and/or write', 'and/or')).toEqual({ text: 'Read _____ write', answer: 'and/or' });
    for (const word of ['-', '\\', '[a-z]', '(?<x>', '{1}', '^$', '\u0000', '\uD800'])
      expect(() => blankWord(`x ${word} y`, word)).not.toThrow();
  });

  it('When there is no usable example, Then the definition with a blank is used', () => {
    expect(fillInBlankText({ word: 'run', example: null, definition: 'to move fast' })).toEqual({
      text: 'to move fast: _____',
      answer: 'run',
    });
  });
});

describe('optimal review mode', () => {
  it('When the learner is A1, Then no complex type is ever available or chosen', () => {
    for (const level of CEFR_LEVELS)
      for (const mastery of [0, 60, 100]) {
        const d = optimalReviewMode('A1', { difficultyLevel: level, masteryLevel: mastery });
        expect(d.availableTypes.some((t) => COMPLEX_TYPES.includes(t))).toBe(false);
        expect(d.availableTypes).toContain(d.questionType);
      }
  });

  it('When the word is above, at or below the learner level, Then the situation follows and the type is available', () => {
    expect(optimalReviewMode('B1', { difficultyLevel: 'C1', masteryLevel: 0 })).toMatchObject({
      situation: 'word_above_level',
      questionType: 'flashcard',
    });
    expect(optimalReviewMode('B1', { difficultyLevel: 'B1', masteryLevel: 70 })).toMatchObject({
      situation: 'word_at_level',
      questionType: 'fill_in_blank',
    });
    expect(optimalReviewMode('C2', { difficultyLevel: 'A1', masteryLevel: 70 })).toMatchObject({
      situation: 'word_below_level',
      questionType: 'typing',
    });
    expect(optimalReviewMode('B2', { difficultyLevel: null, masteryLevel: 0 })).toMatchObject({
      situation: 'word_at_level',
      wordLevel: null,
    });
  });
});

describe('questions', () => {
  const card = {
    id: 'c1',
    word: 'run',
    translation: 'rennen',
    definition: 'move fast',
    example: 'I ran.',
    exampleTranslation: 'Ich rannte.',
    filledQuestionText: null,
  };
  it('When a multiple-choice question is built, Then the right answer is among at most four distinct options', () => {
    const q = buildQuestion('multiple_choice', card, [
      'gehen',
      'Rennen',
      'laufen',
      'gehen',
      'essen',
      'sehen',
    ]);
    expect(q.options).toHaveLength(4);
    expect(q.options).toContain('rennen');
    expect(new Set(q.options).size).toBe(4);
    expect(q.options).not.toContain('Rennen');
  });
  it('When a fill-in-the-blank question is built, Then the stored text is used when present', () => {
    expect(buildQuestion('fill_in_blank', card, []).questionText).toBe('I _____.');
    expect(
      buildQuestion('fill_in_blank', { ...card, filledQuestionText: 'stored _____' }, []).questionText,
    ).toBe('stored _____');
  });
});
