import { checkGrammar } from './grammar-check';

describe('checkGrammar', () => {
  it.each([
    ['he go to school every day', 'He goes to school every day.'],
    ['She have a apple.', 'She has an apple.'],
    ['They goes to the the park.', 'They go to the park.'],
    ['i think i can', 'I think I can.'],
    ['It is an university', 'It is a university.'],
    ['where is  the station', 'Where is the station?'],
    ["He don't like it.", "He doesn't like it."],
    ['She don’t know.', 'She doesn’t know.'],
    ['They was late.', 'They were late.'],
    ["We wasn't there.", "We weren't there."],
    ['She have two cats.', 'She has two cats.'],
    ['I is happy.', 'I am happy.'],
    ['You is right.', 'You are right.'],
    ["He haven't eaten.", "He hasn't eaten."],
    ["It aren't mine.", "It isn't mine."],
    ["They doesn't care.", "They don't care."],
    ['He were here.', 'He was here.'],
    ['She go home.', 'She goes home.'],
  ])('When the sentence is "%s", Then it is corrected to "%s"', (input, expected) => {
    expect(checkGrammar(input).corrected).toBe(expected);
  });

  it.each([
    'Did he go home?',
    'Let it go.',
    'They made him leave.',
    'The book that he read was good.',
    'She put it there.',
    'I saw a unicorn.',
    'It was an honest mistake.',
    'He had had enough.',
    'She said that that was fine.',
    'He can swim.',
    "He doesn't know.",
    "They don't know.",
    "She can't swim.",
    "I didn't go.",
    'If he were rich, he would travel.',
    'I wish it were true.',
    'I was there.',
    'Does he have a car?',
  ])('When the sentence "%s" is correct, Then no rule fires', (sentence) => {
    expect(checkGrammar(sentence).corrections).toEqual([]);
  });

  it('When a sentence is correct, Then nothing is changed', () => {
    expect(checkGrammar('She walks to an old house every morning.')).toEqual({
      corrected: 'She walks to an old house every morning.',
      corrections: [],
    });
  });

  it('When a correction is made, Then it names its type, the original and the suggestion', () => {
    expect(checkGrammar('He go home.').corrections).toEqual([
      expect.objectContaining({ type: 'agreement', original: 'He go', suggestion: 'He goes' }),
    ]);
  });
});
