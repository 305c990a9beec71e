import type { Morphology, Reading } from '../domain/language/language-data';

/**
 * Analysers asked in turn: each word gets the readings of the first analyser that knows it, so a
 * small analyser is completed by a broader one (Russian: two Apertium pairs' analysers, then
 * Hunspell's affix rules) without its readings being mixed with guesses.
 */
export function chainedMorphology(language: string, analysers: Morphology[]): Morphology {
  if (analysers.length === 1) return analysers[0]!;
  return {
    language,
    async analyse(words) {
      const out = new Map<string, Reading[]>();
      let unknown = words;
      for (const analyser of analysers) {
        if (unknown.length === 0) break;
        const readings = await analyser.analyse(unknown);
        for (const word of unknown) {
          const found = readings.get(word);
          if (found && found.length > 0) out.set(word, found);
        }
        unknown = unknown.filter((w) => !out.has(w));
      }
      return out;
    },
  };
}
