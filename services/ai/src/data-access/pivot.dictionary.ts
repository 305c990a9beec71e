import type { BilingualDictionary, DictionaryEntry } from '../domain/language/language-data';

/** A pivot language: English → pivot, then pivot → the target. */
export interface Pivot {
  language: string;
  toPivot: BilingualDictionary;
  fromPivot: BilingualDictionary;
}

/** Translations of an entry worth following: the first few, the dictionary's main ones. */
const FOLLOWED = 3;

/** "(to) go (by car)" → "go": what a translation is looked up as in the next dictionary. */
const bare = (translation: string) =>
  translation
    .replace(/\([^)]*\)|\[[^\]]*\]|<[^>]*>/g, ' ')
    .replace(/^to\s+/i, '')
    .replace(/(^|\s)\d+\.(?=\s|$)/g, ' ') // sense numbers left in some entries ("capitán 2.")
    .replace(/\s+/g, ' ')
    .trim();

const sum = (ranks: Map<string, number>) => [...ranks.values()].reduce((a, b) => a + b, 0);

/**
 * Translations found through other languages where no English→target dictionary has the word:
 * the word is translated into each pivot language (English→French, →German…) and those translations
 * into the target (French→Spanish, German→Spanish…), all with Debian's FreeDict dictionaries. A
 * target word counts only when at least two pivots lead to it independently (lexical triangulation):
 * one pivot alone mixes up the senses of an ambiguous pivot word. Each entry says which pivots
 * agreed (`via`), so the card can say the translation is not a direct dictionary entry.
 */
export function pivotDictionary(from: string, to: string, pivots: Pivot[]): BilingualDictionary {
  return {
    from,
    to,
    lookup(headword) {
      if (pivots.length < 2) return [];
      // target word → the pivots that reach it, its best rank and the English entry's part of speech
      const found = new Map<string, { via: Map<string, number>; paths: number; pos: string | undefined }>();
      for (const pivot of pivots) {
        const seen = new Set<string>();
        pivot.toPivot.lookup(headword).forEach((entry, e) => {
          entry.translations.slice(0, FOLLOWED).forEach((middle, m) => {
            const key = bare(middle);
            if (!key || seen.has(key)) return;
            seen.add(key);
            for (const back of pivot.fromPivot.lookup(key))
              back.translations.slice(0, FOLLOWED).forEach((t, i) => {
                const word = bare(t);
                if (!word) return;
                const rank = e * 10 + m * 3 + i;
                const hit = found.get(word) ?? {
                  via: new Map<string, number>(),
                  paths: 0,
                  pos: entry.partOfSpeech,
                };
                found.set(word, hit);
                hit.paths++;
                hit.via.set(pivot.language, Math.min(hit.via.get(pivot.language) ?? rank, rank));
              });
          });
        });
      }
      const agreed = [...found.entries()]
        .filter(([, f]) => f.via.size >= 2)
        // most pivots first, then the most paths (entries) leading to it ("king": "re" through roi and
        // four König entries before "signora" through the draughts piece dame/Dame), then the nearest to
        // the main translations
        .sort(([, a], [, b]) => b.via.size - a.via.size || b.paths - a.paths || sum(a.via) - sum(b.via));
      if (!agreed.length) return [];
      const best = agreed[0]![1];
      const entry: DictionaryEntry = {
        headword,
        partOfSpeech: best.pos,
        pronunciation: undefined,
        translations: agreed.map(([w]) => w),
        examples: [],
        labels: [],
        via: [...best.via.keys()],
        // ranked by how many pivots and paths agree: that order stands against word frequency
        sensesInOrder: true,
      };
      return [entry];
    },
  };
}
