import type { GenerateCardsRequest } from './ai-provider';

/** Prompts for the OpenAI-compatible provider; each asks for one JSON object of a fixed shape. */

const JSON_ONLY = 'Answer with one JSON object only, exactly in the shape given, no prose.';

export function cardsPrompt(req: GenerateCardsRequest) {
  const source =
    req.mode === 'text' ? `Take the words from this text:\n"""${req.input}"""` : `Theme: ${req.input}`;
  return {
    system:
      `You create vocabulary flashcards for language learners. ${JSON_ONLY}\n` +
      '{"cards":[{"word":string,"translation":string|null,"partOfSpeech":string,"pronunciation":string|null (IPA),' +
      '"definition":string|null,"example":string|null,"exampleTranslation":string|null,"synonyms":string[],' +
      '"difficulty":"beginner"|"intermediate"|"advanced","confidence":number 0..1}]}',
    user:
      `${source}\n` +
      `Language of the words: ${req.sourceLanguage}. ` +
      (req.targetLanguage ? `Translate into: ${req.targetLanguage}. ` : 'No translation: use null. ') +
      `Difficulty: ${req.difficulty}. Number of cards: ${req.count}. ` +
      `Examples: ${req.includeExamples ? 'yes' : 'no (null)'}. Synonyms: ${req.includeSynonyms ? 'yes' : 'no ([])'}.`,
  };
}

export function sentencePrompt(sentence: string, language: string) {
  return {
    system:
      `You correct the grammar of a learner's sentence (language: ${language}) and mark the words worth learning ` +
      `(CEFR B1 or above). ${JSON_ONLY}\n` +
      '{"corrected":string,"corrections":[{"type":"capitalization"|"article"|"agreement"|"repetition"|"punctuation"|' +
      '"spacing"|"spelling"|"tense"|"word-order"|"other","original":string,"suggestion":string,"message":string}],' +
      '"highValueWords":[{"word":string,"lemma":string,"partOfSpeech":string,"cefrLevel":"A1".."C2"}]}',
    user: sentence,
  };
}

export function lookupPrompt(
  word: string,
  context: string | undefined,
  language: string,
  target: string | undefined,
) {
  return {
    system:
      `You are a learner's dictionary (language: ${language}). ${JSON_ONLY}\n` +
      '{"lemma":string,"partOfSpeech":string,"pronunciation":string|null (IPA),"cefrLevel":"A1".."C2",' +
      '"definition":string|null,"translation":string|null,"examples":string[] (at most 3)}',
    user:
      `Word: ${word}\n` +
      (context ? `As used in: ${context}\n` : '') +
      (target ? `Translate into: ${target}` : 'No translation: use null.'),
  };
}

export function describePrompt(word: string, context: string | undefined) {
  return {
    system: `You write one-paragraph descriptions of simple example images for vocabulary cards; no text in the image. ${JSON_ONLY}\n{"description":string}`,
    user: `Word: ${word}` + (context ? `\nExample sentence: ${context}` : ''),
  };
}
